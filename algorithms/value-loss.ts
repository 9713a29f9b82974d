/**
 * Clipped value loss for the PPO critic.
 *
 *   V_clip  = clip(V_new, V_old − ε_v, V_old + ε_v)
 *   loss_t  = max((V_new − G)², (V_clip − G)²)
 *   lossValue = 0.5 · token-mean of loss_t over agent tokens
 *
 * Matches verl's `compute_value_loss` (from TRL): pessimistic max of the clipped and unclipped
 * squared errors, the 0.5 factor, and `valueClipFraction` = share of agent tokens where the
 * clipped error was larger. G are the GAE returns (gae.ts), V_old the values the returns were
 * computed with.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedMean } from './masked.ts';

export type ValueLossArgs = {
  /** ε_v: how far a value prediction may move from the old value before clipping (verl: 0.5) */
  valueClip: number;
};

export const valueLossDefaults: ValueLossArgs = { valueClip: 0.5 };

export type ValueLossTerms = {
  lossValue: tf.Scalar;
  /** share of agent tokens where the clipped error was the larger one */
  valueClipFraction: tf.Scalar;
};

export function valueLoss(
  values: tf.Tensor,
  oldValues: tf.Tensor,
  returns: tf.Tensor,
  mask: tf.Tensor,
  args: Partial<ValueLossArgs> = {},
): ValueLossTerms {
  const { valueClip } = { ...valueLossDefaults, ...args };
  return tf.tidy(() => {
    const clippedValues = tf.add(tf.clipByValue(tf.sub(values, oldValues), -valueClip, valueClip), oldValues);
    const unclippedError = tf.square(tf.sub(values, returns));
    const clippedError = tf.square(tf.sub(clippedValues, returns));
    return {
      lossValue: tf.mul(0.5, maskedMean(tf.maximum(unclippedError, clippedError), mask)),
      valueClipFraction: maskedMean(tf.cast(tf.greater(clippedError, unclippedError), 'float32'), mask),
    };
  });
}
