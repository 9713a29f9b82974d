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
import * as tf from '@tensorflow/tfjs';
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

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  tf.registerKernel({ kernelName: 'ActorgymAttention', backendName: 'wasm', kernelFunc: forwardKernel as unknown as tf.KernelFunc });
  tf.registerKernel({ kernelName: 'ActorgymAttentionGrad', backendName: 'wasm', kernelFunc: backwardKernel as unknown as tf.KernelFunc });
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

/** The forward alone, for inference (prefill): no tape, and the softmax output is dropped. */
export function fusedAttentionInfer(qkv: tf.Tensor2D, s: HeadShape): tf.Tensor2D {
  register();
  const attrs = { ...s, scale: 1 / Math.sqrt(s.headDim) } as unknown as tf.NamedAttrMap;
  const [out, probs] = tf.engine().runKernel('ActorgymAttention', { qkv }, attrs) as unknown as [tf.Tensor2D, tf.Tensor3D];
  probs.dispose();
  return out;
}
