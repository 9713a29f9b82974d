/**
 * Token-mean aggregation (verl's `loss_agg_mode: "token-mean"`): the mean of a per-token
 * quantity over every agent token of the batch, so long trajectories weigh by their length.
 *
 * Departure: verl divides by `mask.sum()` and yields NaN for an empty mask; here the
 * denominator is at least 1, so a batch without agent tokens gives 0.
 */
import * as tf from '@tensorflow/tfjs-core';

/** sum(x · mask) / max(sum(mask), 1); `mask` may be float32 or int32/bool. Call inside a tidy. */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  const m = tf.cast(mask, 'float32');
  return tf.div(tf.sum(tf.mul(x, m)), tf.maximum(tf.sum(m), 1));
}
