/**
 * Full fine-tuning for the benchmark: every weight of a loaded HfCausalLm copied into a
 * tf.Variable, and the same forward pass over the copies. policy/hf/ has no such helper yet (only
 * LoRA trains), so the bench builds it here.
 *
 * The WebAssembly backend lacks the kernel of tf.gather's gradient (UnsortedSegmentSum), which
 * the embedding lookup needs once the embedding trains; `registerWasmSegmentSum` adds a plain
 * JS one (a [tokens, hidden] sum: microseconds next to a step of seconds).
 */
import * as tf from '@tensorflow/tfjs-core';

import { HfCausalLm, type CausalLmWeights } from '../policy/hf/causal-lm.ts';
import type { LinearWeights } from '../policy/hf/linear.ts';

export interface FullFineTune {
  readonly model: HfCausalLm;
  readonly variables: tf.Variable[];
  dispose(): void;
}

/** A trainable copy of `base` (the base keeps its own tensors). */
export function fullFineTune(base: HfCausalLm): FullFineTune {
  const variables: tf.Variable[] = [];
  const v = <T extends tf.Tensor>(t: T): T => {
    const copy = tf.variable(t, true);
    variables.push(copy);
    return copy as unknown as T;
  };
  const lin = (w: LinearWeights): LinearWeights => (w.bias === undefined ? { weight: v(w.weight) } : { weight: v(w.weight), bias: v(w.bias) });
  const w = base.weights;
  const weights: CausalLmWeights = {
    ...(w.embedTokens === undefined ? {} : { embedTokens: v(w.embedTokens) }),
    lmHead: v(w.lmHead),
    finalNorm: v(w.finalNorm),
    layers: w.layers.map((l) => ({
      inputNorm: v(l.inputNorm),
      postAttentionNorm: v(l.postAttentionNorm),
      attention: {
        q: lin(l.attention.q), k: lin(l.attention.k), v: lin(l.attention.v), o: lin(l.attention.o),
        ...(l.attention.qNorm === undefined ? {} : { qNorm: v(l.attention.qNorm) }),
        ...(l.attention.kNorm === undefined ? {} : { kNorm: v(l.attention.kNorm) }),
      },
      mlp: { gate: lin(l.mlp.gate), up: lin(l.mlp.up), down: lin(l.mlp.down) },
    })),
  };
  return { model: new HfCausalLm(base.config, weights), variables, dispose: () => tf.dispose(variables) };
}

interface WasmBackend {
  readSync(dataId: unknown): tf.backend_util.BackendValues;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): tf.backend_util.TypedArray;
}

let registered = false;

/** Registers UnsortedSegmentSum (float32 data, int32 segment ids) on the wasm backend, once. */
export function registerWasmSegmentSum(): void {
  if (registered || tf.getKernel('UnsortedSegmentSum', 'wasm') !== undefined) return;
  registered = true;
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, attrs, backend }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const numSegments = (attrs as { numSegments: number }).numSegments;
      const wasm = backend as unknown as WasmBackend;
      const data = wasm.readSync(x.dataId) as Float32Array;
      const ids = wasm.readSync(segmentIds.dataId) as Int32Array;
      const inner = x.shape.slice(1).reduce((a, b) => a * b, 1);
      const out = wasm.makeOutput([numSegments, ...x.shape.slice(1)], 'float32');
      const sums = wasm.typedArrayFromHeap(out) as Float32Array;
      sums.fill(0);
      for (let r = 0; r < ids.length; r++) {
        const id = ids[r]!;
        if (id < 0 || id >= numSegments) continue;
        for (let c = 0; c < inner; c++) sums[id * inner + c]! += data[r * inner + c]!;
      }
      return out;
    },
  });
}
