/**
 * Embedding lookup `table[ids]` that trains on every backend.
 *
 * Why: on the WebAssembly backend `tf.gather` has no gradient (its kernel, UnsortedSegmentSum,
 * is missing), and a one-hot matmul costs a [N, V] × [V, d] product each way. Here the forward
 * is a row copy (head-kernels.ts) and the backward a `scatterND`, which sums the rows of duplicate ids (measured:
 * 0.5 ms for 4,096 ids × 128 on wasm, against about 60 ms for the one-hot product).
 */
import * as tf from '@tensorflow/tfjs-core';
import { customOp } from './custom-op.ts';
import { takeRows } from './head-kernels.ts';

/** `table` [V, d], `ids` int32 [N] → [N, d]. */
export function embed(table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D {
  const f = customOp<tf.Tensor2D>(([t], save) => {
    const [vocab, dim] = t!.shape as [number, number];
    // Saved rather than closed over: the caller's `ids` may be disposed before backprop runs.
    save([ids]);
    return {
      value: takeRows(t as tf.Tensor2D, ids),
      gradFunc: (dy, saved) => tf.scatterND(tf.reshape((saved[0] as tf.Tensor1D), [-1, 1]), dy, [vocab, dim]),
    };
  });
  return f(table);
}
