/**
 * Gradients computed inside another gradient's backward pass (the recomputation of a
 * checkpointed layer). TF.js's engine keeps one active tape: a nested `gradients()` call made
 * while the outer backward pass runs replaces it and leaves it null when done, and the outer pass
 * then fails when it frees its own tape. The outer tape is put back afterwards.
 */
import * as tf from '@tensorflow/tfjs-core';

/** d(f())/d(xs) weighted by `dy`; an x that f does not reach gets zeros. */
export function isolatedGradients(f: () => tf.Tensor, xs: readonly tf.Tensor[], dy: tf.Tensor): tf.Tensor[] {
  const state = tf.engine().state;
  const outerTape = state.activeTape;
  try {
    const { value, grads } = tf.engine().gradients(f, [...xs], dy, true);
    value.dispose();
    return xs.map((x, i) => grads[i] ?? tf.zerosLike(x));
  } finally {
    state.activeTape = outerTape;
  }
}
