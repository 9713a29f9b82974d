/**
 * Forward-only batched matmul `a[i] @ b[i]` (inference paths), as a loop of 2-D matmuls when
 * that is faster.
 *
 * Why: the WebAssembly backend sends every BatchMatMul with a batch dimension > 1 (and every
 * transposed one) through a generic loop at about 2 GFLOP/s, while a 2-D matmul goes to XNNPACK.
 * For attention-sized items (128×32 by 32×128) a JS loop of 2-D matmuls is about 4× faster than
 * one batched call, despite the per-op overhead. Tiny items (decoding: one query row) are faster
 * as one batched call, so `batchedMatMul` picks by size.
 */
import * as tf from '@tensorflow/tfjs-core';
import { fastUnstack } from './head-kernels.ts';

/**
 * Below this many multiply-adds per item the single batched kernel wins over the loop (measured
 * with 256 items: even at 16K, loop ahead from 32K, 5.7× faster at 512K).
 */
const LOOP_MIN_ITEM_MACS = 24_576;

/** Forward-only batched matmul, [n, m, k] × [n, k, p] → [n, m, p]. */
export function batchedMatMul(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  const [n, m, k] = a.shape;
  const p = b.shape[2];
  if (n === 1) return tf.tidy(() => tf.reshape(tf.matMul(tf.reshape(a, [m, k]), tf.reshape(b, [k, p])), [1, m, p]));
  if (m * k * p < LOOP_MIN_ITEM_MACS || tf.getBackend() !== 'wasm') return tf.matMul(a, b);
  return tf.tidy(() => {
    const as = fastUnstack(a) as tf.Tensor2D[];
    const bs = fastUnstack(b) as tf.Tensor2D[];
    return tf.stack(as.map((ai, i) => tf.matMul(ai, bs[i]!))) as tf.Tensor3D;
  });
}
