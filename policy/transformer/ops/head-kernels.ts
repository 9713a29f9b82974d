/**
 * Data-movement kernels, registered for the `wasm` and `cpu` backends, that feed the attention
 * loop in attention-core.ts and the embedding lookups:
 *
 *   ActorgymUnstack     x [n, …rest] → n tensors [rest] (optionally each 2-D item transposed)
 *   ActorgymTakeRows    table [V, d], ids [N] → [N, d] (wasm's GatherV2 costs 19 ms for 4,096 rows)
 *   ActorgymSplitHeads  x [B·T, W] → B·H tensors [T, dh] (or [dh, T]) read from columns
 *                       offset … offset+d of x, optionally scaled
 *   ActorgymMergeHeads  G·B·H tensors [T, dh] (or [dh, T]) → [B·T, G·d]  (the inverse, for G
 *                       groups side by side)
 *   ActorgymRowHeads    x [B·T, W] → B tensors [H, len_b, dh]: each sequence's first len_b
 *                       positions of columns offset … offset+d, all heads (prefill's KV cache)
 *
 * Why: the WebAssembly backend's Slice kernel (used by slice, split and unstack) first copies
 * the *whole* input out of the wasm heap (`readSync`), so taking 128 slices of one tensor costs
 * 128 full copies (measured: unstack of [128, 128, 32] took 50–1000 ms; this kernel 0.3 ms).
 * These kernels copy straight between heap views. They have no gradients: they are only used
 * inside custom-gradient ops whose backward pass calls them again. Other backends (tfjs-node)
 * never reach them (attention-core.ts uses plain batched matmuls there).
 */
import * as tf from '@tensorflow/tfjs-core';
import { heapIO, size, type Info } from './heap-io.ts';
import { blockCopy, transposeCopy } from './transpose.ts';

function unstackKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): Info[] {
  const x = inputs['x']!;
  const transpose = (attrs as { transpose?: boolean } | undefined)?.transpose === true;
  const io = heapIO(backend);
  const [n = 0, ...rest] = x.shape;
  const item = size(rest);
  const [rows = 1, cols = 1] = rest;
  const outs = Array.from({ length: n }, () => io.alloc(transpose ? [cols, rows] : rest));
  const xv = io.view(x);
  outs.forEach((o, i) => {
    const ov = io.view(o);
    if (!transpose) {
      ov.set(xv.subarray(i * item, (i + 1) * item));
      return;
    }
    transposeCopy(xv, i * item, cols, ov, 0, rows, rows, cols);
  });
  return outs;
}

/** Rows `ids` of `table` [V, d] → [N, d] (a gather; the wasm GatherV2 kernel copies element by element). */
function takeRowsKernel({ inputs, backend }: { inputs: tf.NamedTensorInfoMap; backend: unknown }): Info {
  const table = inputs['table']!;
  const ids = inputs['ids']!;
  const io = heapIO(backend);
  const [vocab = 0, d = 0] = table.shape;
  const n = size(ids.shape);
  const out = io.alloc([n, d]);
  const ov = io.view(out);
  const tv = io.view(table);
  const iv = io.viewInt(ids);
  for (let i = 0; i < n; i++) {
    const id = iv[i]!;
    if (id < 0 || id >= vocab) throw new Error(`token id ${id} outside the table [0, ${vocab})`);
    ov.set(tv.subarray(id * d, (id + 1) * d), i * d);
  }
  return out;
}

interface HeadAttrs { batch: number; time: number; heads: number; headDim: number }
interface SplitAttrs extends HeadAttrs { offset: number; transpose: boolean; scale: number }

function splitHeadsKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): Info[] {
  const { batch, time, heads, headDim, offset, transpose, scale } = attrs as unknown as SplitAttrs;
  const x = inputs['x']!;
  const width = x.shape[1]!;
  const io = heapIO(backend);
  const outs = Array.from({ length: batch * heads }, () => io.alloc(transpose ? [headDim, time] : [time, headDim]));
  const xv = io.view(x);
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < heads; h++) {
      const ov = io.view(outs[b * heads + h]!);
      const first = b * time * width + offset + h * headDim;
      if (transpose) {
        transposeCopy(xv, first, width, ov, 0, time, time, headDim, scale);
        continue;
      }
      // Copied in loops: a subarray per 32-float row costs more than the copy itself.
      blockCopy(xv, first, width, ov, 0, headDim, time, headDim, scale);
    }
  }
  return outs;
}

function mergeHeadsKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): Info {
  const { batch, time, heads, headDim, transposed } = attrs as unknown as HeadAttrs & { transposed: boolean[] };
  const items = Object.values(inputs) as Info[];
  const perGroup = batch * heads;
  const groups = items.length / perGroup;
  const d = heads * headDim;
  const width = groups * d;
  const io = heapIO(backend);
  const out = io.alloc([batch * time, width]);
  const ov = io.view(out);
  items.forEach((item, index) => {
    const g = Math.floor(index / perGroup);
    const b = Math.floor((index % perGroup) / heads);
    const h = index % heads;
    const iv = io.view(item);
    const first = b * time * width + g * d + h * headDim;
    if (transposed[g] === true) {
      transposeCopy(iv, 0, time, ov, first, width, headDim, time);
      return;
    }
    blockCopy(iv, 0, headDim, ov, first, width, time, headDim);
  });
  return out;
}

/** One [H, len_b, dh] tensor per sequence b, in one copy (instead of split, stack, unstack and slice). */
function rowHeadsKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): Info[] {
  const { heads, headDim, offset, lengths, starts } = attrs as unknown as HeadAttrs & { offset: number; lengths: number[]; starts: number[] };
  const x = inputs['x']!;
  const width = x.shape[1]!;
  const io = heapIO(backend);
  const outs = lengths.map((len) => io.alloc([heads, len, headDim]));
  const xv = io.view(x);
  outs.forEach((o, b) => {
    const ov = io.view(o);
    const len = lengths[b]!;
    for (let h = 0; h < heads; h++) {
      blockCopy(xv, starts[b]! * width + offset + h * headDim, width, ov, h * len * headDim, headDim, len, headDim);
    }
  });
  return outs;
}

let registered = false;

/** Registers the kernels once per process (tfjs keeps one global kernel registry). */
export function registerHeadKernels(): void {
  if (registered) return;
  registered = true;
  const kernels: Array<[string, tf.KernelFunc]> = [
    ['ActorgymUnstack', unstackKernel as unknown as tf.KernelFunc],
    ['ActorgymTakeRows', takeRowsKernel as unknown as tf.KernelFunc],
    ['ActorgymSplitHeads', splitHeadsKernel as unknown as tf.KernelFunc],
    ['ActorgymMergeHeads', mergeHeadsKernel as unknown as tf.KernelFunc],
    ['ActorgymRowHeads', rowHeadsKernel as unknown as tf.KernelFunc],
  ];
  for (const backendName of ['wasm', 'cpu']) {
    for (const [kernelName, kernelFunc] of kernels) {
      if (tf.getKernel(kernelName, backendName) === undefined) tf.registerKernel({ kernelName, backendName, kernelFunc });
    }
  }
}

/** Whether the active backend runs these kernels (wasm, cpu). */
export const headKernelsAvailable = (): boolean => ['wasm', 'cpu'].includes(tf.getBackend());

/** `x` [n, …rest] → n tensors; with `transpose`, each [r, c] item comes out as [c, r]. */
export function fastUnstack(x: tf.Tensor, transpose = false): tf.Tensor[] {
  registerHeadKernels();
  return tf.engine().runKernel('ActorgymUnstack', { x }, { transpose }) as unknown as tf.Tensor[];
}

/** `table[ids]` for `table` [V, d] and int32 `ids` [N] → [N, d]; forward only. */
export function takeRows(table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D {
  if (!headKernelsAvailable()) return tf.gather(table, ids);
  registerHeadKernels();
  return tf.engine().runKernel('ActorgymTakeRows', { table, ids }, {}) as tf.Tensor2D;
}

export interface HeadShape { readonly batch: number; readonly time: number; readonly heads: number; readonly headDim: number }

/** Per-(batch, head) [T, dh] (or [dh, T] when `transpose`) tensors from columns `offset…offset+d` of `x` [B·T, W]. */
export function splitHeads(x: tf.Tensor2D, s: HeadShape, offset: number, transpose = false, scale = 1): tf.Tensor2D[] {
  registerHeadKernels();
  const attrs = { ...s, offset, transpose, scale } as unknown as tf.NamedAttrMap;
  return tf.engine().runKernel('ActorgymSplitHeads', { x }, attrs) as unknown as tf.Tensor2D[];
}

/**
 * Inverse of `splitHeads` for G groups of B·H items laid side by side: → [B·T, G·d]. Items of
 * group g are [T, dh], or [dh, T] when `transposed[g]`.
 */
export function mergeHeads(items: readonly tf.Tensor[], s: HeadShape, transposed: readonly boolean[] = []): tf.Tensor2D {
  registerHeadKernels();
  const attrs = { ...s, transposed: [...transposed] } as unknown as tf.NamedAttrMap;
  return tf.engine().runKernel('ActorgymMergeHeads', items as unknown as tf.NamedTensorMap, attrs) as tf.Tensor2D;
}

/**
 * Per sequence b, rows `starts[b] … starts[b] + lengths[b]` of columns `offset…offset+d` of
 * `x` [N, W], as [H, lengths[b], dh] (the KV-cache layout); forward only. Without `starts`, the
 * sequences are padded to `s.time` rows each (start b·time).
 */
export function rowHeads(x: tf.Tensor2D, s: HeadShape, offset: number, lengths: readonly number[], starts?: readonly number[]): tf.Tensor3D[] {
  const begin = starts ?? lengths.map((_, b) => b * s.time);
  const fits = lengths.length === s.batch && begin.length === s.batch
    && lengths.every((len, b) => Number.isInteger(len) && len >= 1 && len <= s.time && begin[b]! >= 0 && begin[b]! + len <= x.shape[0]);
  if (!fits) throw new Error(`rowHeads: ${s.batch} lengths in [1, ${s.time}] inside ${x.shape[0]} rows expected, got [${lengths.join(', ')}] at [${begin.join(', ')}]`);
  registerHeadKernels();
  const attrs = { ...s, offset, lengths: [...lengths], starts: [...begin] } as unknown as tf.NamedAttrMap;
  return tf.engine().runKernel('ActorgymRowHeads', { x }, attrs) as unknown as tf.Tensor3D[];
}
