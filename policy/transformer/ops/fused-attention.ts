/**
 * Causal attention (qkv [B·T, 3d] → merged heads [B·T, d]) as one custom-gradient op whose forward
 * and backward each run as a single WebAssembly SIMD call on the tfjs wasm backend's own memory
 * (wasm/attention.as.ts, built into wasm/attention.wasm by `npm run build:wasm`).
 *
 * Why: attention-core.ts's loop of per-head tfjs matmuls costs ~75 ms of a 300 ms half-step of the
 * reference model, most of it per-call overhead and head copies (docs/benchmarks.md); here the
 * heads never leave wasm and the masked upper triangle is skipped.
 *
 * Safety. The module imports the backend's memory and only reads and writes the tensors and the
 * scratch block it is handed; it is checked at load to carry no data segment (which would be
 * written over tfjs's memory on instantiation).
 */
import * as tf from '@tensorflow/tfjs-core';
import { readFileSync } from 'node:fs';
import { customOp } from './custom-op.ts';
import type { HeadShape } from './head-kernels.ts';

/** The few WebAssembly JS API members used here (this project's TS lib has no DOM/wasm types). */
type Memory = object;
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WasmJs = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface WasmBackend {
  wasm: { asm: { memory: Memory }; _malloc(bytes: number): number; _free(ptr: number): void };
  dataIdMap: { get(id: tf.DataId): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
}

interface AttentionExports {
  scratchFloats(t: number, dh: number): number;
  forward(qkv: number, out: number, probs: number, scratch: number, batch: number, t: number, heads: number, dh: number, scale: number): void;
  backward(qkv: number, probs: number, dout: number, dqkv: number, scratch: number, batch: number, t: number, heads: number, dh: number, scale: number): void;
  forwardPacked(qkv: number, out: number, lens: number, scratch: number, batch: number, maxT: number, heads: number, dh: number, scale: number): void;
}

let compiled: object | undefined;
const instances = new WeakMap<Memory, AttentionExports>();

/** Whether a wasm binary has a data section (id 11), read from its section headers. */
export function hasDataSection(bytes: Uint8Array): boolean {
  let at = 8; // magic + version
  while (at < bytes.length) {
    const id = bytes[at++]!;
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++]!;
      size |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
    }
    if (id === 11) return true;
    at += size;
  }
  return false;
}

function moduleFor(backend: WasmBackend): AttentionExports {
  const memory = backend.wasm.asm.memory;
  const known = instances.get(memory);
  if (known) return known;
  if (compiled === undefined) {
    const bytes = readFileSync(new URL('./wasm/attention.wasm', import.meta.url));
    if (hasDataSection(bytes)) throw new Error('wasm/attention.wasm has a data segment: it would overwrite tfjs memory; rebuild it with `npm run build:wasm`');
    compiled = new WasmJs.Module(bytes);
  }
  const exports = new WasmJs.Instance(compiled, { env: { memory } }).exports as unknown as AttentionExports;
  instances.set(memory, exports);
  return exports;
}

interface Attrs extends HeadShape { scale: number }

const paddedTime = (t: number): number => Math.ceil(t / 8) * 8;

function withScratch<T>(backend: WasmBackend, floats: number, f: (scratch: number) => T): T {
  const scratch = backend.wasm._malloc(floats * 4);
  try {
    return f(scratch);
  } finally {
    backend.wasm._free(scratch);
  }
}

function forwardKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo[] {
  const be = backend as WasmBackend;
  const { batch, time, heads, headDim, scale } = attrs as unknown as Attrs;
  const m = moduleFor(be);
  const tp = paddedTime(time);
  const out = be.makeOutput([batch * time, heads * headDim], 'float32');
  const probs = be.makeOutput([batch * heads, tp, tp], 'float32');
  const at = (t: tf.TensorInfo) => be.dataIdMap.get(t.dataId).memoryOffset;
  withScratch(be, m.scratchFloats(time, headDim), (scratch) => {
    m.forward(at(inputs['qkv']!), at(out), at(probs), scratch, batch, time, heads, headDim, scale);
  });
  return [out, probs];
}

function backwardKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const be = backend as WasmBackend;
  const { batch, time, heads, headDim, scale } = attrs as unknown as Attrs;
  const m = moduleFor(be);
  const dqkv = be.makeOutput([batch * time, 3 * heads * headDim], 'float32');
  const at = (t: tf.TensorInfo) => be.dataIdMap.get(t.dataId).memoryOffset;
  withScratch(be, m.scratchFloats(time, headDim), (scratch) => {
    m.backward(at(inputs['qkv']!), at(inputs['probs']!), at(inputs['dy']!), at(dqkv), scratch, batch, time, heads, headDim, scale);
  });
  return dqkv;
}

interface PackedAttrs { heads: number; headDim: number; scale: number; maxTime: number }

function packedKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const be = backend as WasmBackend;
  const { heads, headDim, scale, maxTime } = attrs as unknown as PackedAttrs;
  const m = moduleFor(be);
  const qkv = inputs['qkv']!;
  const lens = inputs['lens']!;
  const out = be.makeOutput([qkv.shape[0]!, heads * headDim], 'float32');
  const at = (t: tf.TensorInfo) => be.dataIdMap.get(t.dataId).memoryOffset;
  withScratch(be, m.scratchFloats(maxTime, headDim), (scratch) => {
    m.forwardPacked(at(qkv), at(out), at(lens), scratch, lens.shape[0]!, maxTime, heads, headDim, scale);
  });
  return out;
}

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  tf.registerKernel({ kernelName: 'ActorgymAttention', backendName: 'wasm', kernelFunc: forwardKernel as unknown as tf.KernelFunc });
  tf.registerKernel({ kernelName: 'ActorgymAttentionGrad', backendName: 'wasm', kernelFunc: backwardKernel as unknown as tf.KernelFunc });
  tf.registerKernel({ kernelName: 'ActorgymAttentionPacked', backendName: 'wasm', kernelFunc: packedKernel as unknown as tf.KernelFunc });
}

/** Whether the active backend runs the fused kernels (wasm only). */
export const fusedAttentionAvailable = (): boolean => tf.getBackend() === 'wasm';

/** `qkv` [B·T, 3d] (columns q | k | v, heads contiguous in each) → [B·T, d], causal. */
export function fusedAttention(qkv: tf.Tensor2D, s: HeadShape): tf.Tensor2D {
  register();
  const attrs = { ...s, scale: 1 / Math.sqrt(s.headDim) } as unknown as tf.NamedAttrMap;
  const f = customOp<tf.Tensor2D>(([x], save) => {
    const [out, probs] = tf.engine().runKernel('ActorgymAttention', { qkv: x! }, attrs) as unknown as [tf.Tensor2D, tf.Tensor3D];
    save([x!, probs]);
    return {
      value: out,
      gradFunc: (dy, saved) => {
        const [q, p] = saved as [tf.Tensor2D, tf.Tensor3D];
        return tf.engine().runKernel('ActorgymAttentionGrad', { qkv: q, probs: p, dy }, attrs) as tf.Tensor2D;
      },
    };
  });
  return f(qkv);
}

/**
 * Causal attention over packed sequences, for inference (prefill): `qkv` [N, 3d] holds sequence b
 * in rows start_b … start_b + lengths[b] (starts are the running sum), → [N, d]. Forward only.
 * Why packed: padding every sequence to the longest one doubled prefill's work in BabyAI rollouts
 * (131,684 padded positions for 63,219 tokens).
 */
export function fusedAttentionPacked(qkv: tf.Tensor2D, lengths: readonly number[], heads: number, headDim: number): tf.Tensor2D {
  const total = lengths.reduce((a, b) => a + b, 0);
  if (lengths.length === 0 || lengths.some((len) => !Number.isInteger(len) || len < 1) || total !== qkv.shape[0] || qkv.shape[1] !== 3 * heads * headDim) {
    throw new Error(`fusedAttentionPacked: lengths [${lengths.join(', ')}] do not pack qkv [${qkv.shape.join(', ')}] with ${heads} heads of ${headDim}`);
  }
  register();
  const attrs = { heads, headDim, scale: 1 / Math.sqrt(headDim), maxTime: Math.max(...lengths) } as unknown as tf.NamedAttrMap;
  return tf.tidy(() => tf.engine().runKernel('ActorgymAttentionPacked', { qkv, lens: tf.tensor1d(lengths as number[], 'int32') }, attrs) as tf.Tensor2D);
}
