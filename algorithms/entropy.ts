/**
 * Entropy of the policy's full next-token distribution, H = −Σ_v p_v·log p_v, from logits
 * [B, T, V], token-mean over agent tokens (verl's `entropy_from_logits` + `agg_loss`).
 *
 * Numerically stable: log p comes from `logSoftmax` (max-shifted logsumexp), so large logits do
 * not overflow; log p is floored at −1e4 before the product so that a logit of −Infinity (a
 * vocabulary entry masked out by constrained decoding) contributes 0·(−1e4) = 0 instead of
 * 0·(−∞) = NaN, in the value and in the gradient.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedMean } from './masked.ts';

/** Floor on log p inside p·log p; far below any float32 log-probability a model produces. */
export const ENTROPY_LOG_PROB_FLOOR = -1e4;

/** Per-position entropy [B, T] from logits [B, T, V]. Call inside a tidy. */
export function entropyFromLogits(logits: tf.Tensor): tf.Tensor {
  const logP = tf.logSoftmax(logits, -1);
  const pLogP = tf.mul(tf.exp(logP), tf.maximum(logP, ENTROPY_LOG_PROB_FLOOR));
  return tf.neg(tf.sum(pLogP, -1));
}

/** Token-mean entropy over agent tokens; the one scalar survives. */
export function entropyLoss(logits: tf.Tensor, mask: tf.Tensor): { entropy: tf.Scalar } {
  return tf.tidy(() => ({ entropy: maskedMean(entropyFromLogits(logits), mask) }));
}
