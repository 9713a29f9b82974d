/**
 * 2-D transposes as a JS kernel over tensor memory (wasm and cpu), and the strided block copies
 * (plain and transposing) that the head-copy kernels (head-kernels.ts) share.
 *
 * Why: the wasm backend's Transpose kernel is a generic permutation loop, about 8 ns an element
 * (2.1 ms for the [2,048, 128] activations that every linear layer's backward transposes, nine
 * of them a training step). Copying eight source rows at a time, so that the writes land in runs
 * of eight, takes 0.23 ms for the same array in V8.
 */
import * as tf from '@tensorflow/tfjs-core';
import { heapIO, type Info } from './heap-io.ts';

/**
 * dst[dOff + c·dStride + r] = scale · src[sOff + r·sStride + c] for r < rows, c < cols: a
 * `rows × cols` block of `src` written transposed into `dst`.
 */
export function transposeCopy(
  src: Float32Array, sOff: number, sStride: number,
  dst: Float32Array, dOff: number, dStride: number,
  rows: number, cols: number, scale = 1,
): void {
  const full = rows - (rows % 8);
  for (let r = 0; r < full; r += 8) {
    const s = sOff + r * sStride;
    for (let c = 0; c < cols; c++) {
      const i = s + c;
      const o = dOff + c * dStride + r;
      dst[o] = src[i]! * scale;
      dst[o + 1] = src[i + sStride]! * scale;
      dst[o + 2] = src[i + 2 * sStride]! * scale;
      dst[o + 3] = src[i + 3 * sStride]! * scale;
      dst[o + 4] = src[i + 4 * sStride]! * scale;
      dst[o + 5] = src[i + 5 * sStride]! * scale;
      dst[o + 6] = src[i + 6 * sStride]! * scale;
      dst[o + 7] = src[i + 7 * sStride]! * scale;
    }
  }
  for (let r = full; r < rows; r++) {
    const s = sOff + r * sStride;
    for (let c = 0; c < cols; c++) dst[dOff + c * dStride + r] = src[s + c]! * scale;
  }
}

/**
 * dst[dOff + r·dStride + c] = scale · src[sOff + r·sStride + c] for r < rows, c < cols: a strided
 * block copy (head slices), four elements a step.
 */
export function blockCopy(
  src: Float32Array, sOff: number, sStride: number,
  dst: Float32Array, dOff: number, dStride: number,
  rows: number, cols: number, scale = 1,
): void {
  const full = cols - (cols % 4);
  for (let r = 0; r < rows; r++) {
    const s = sOff + r * sStride;
    const o = dOff + r * dStride;
    for (let c = 0; c < full; c += 4) {
      dst[o + c] = src[s + c]! * scale;
      dst[o + c + 1] = src[s + c + 1]! * scale;
      dst[o + c + 2] = src[s + c + 2]! * scale;
      dst[o + c + 3] = src[s + c + 3]! * scale;
    }
    for (let c = full; c < cols; c++) dst[o + c] = src[s + c]! * scale;
  }
}

function transposeKernel({ inputs, backend }: { inputs: tf.NamedTensorInfoMap; backend: unknown }): Info {
  const x = inputs['x']!;
  const [rows = 0, cols = 0] = x.shape;
  const io = heapIO(backend);
  const out = io.alloc([cols, rows]);
  transposeCopy(io.view(x), 0, cols, io.view(out), 0, rows, rows, cols);
  return out;
}

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  for (const backendName of ['wasm', 'cpu']) {
    if (tf.getKernel('ActorgymTranspose', backendName) === undefined) {
      tf.registerKernel({ kernelName: 'ActorgymTranspose', backendName, kernelFunc: transposeKernel as unknown as tf.KernelFunc });
    }
  }
}

/** `x` [r, c] → [c, r] (float32; no gradient: used inside custom-gradient backward passes). */
export function transpose2d(x: tf.Tensor2D): tf.Tensor2D {
  if (x.dtype !== 'float32' || !['wasm', 'cpu'].includes(tf.getBackend())) return tf.transpose(x);
  register();
  return tf.engine().runKernel('ActorgymTranspose', { x }, {}) as tf.Tensor2D;
}
