/**
 * KL divergence to the frozen reference policy, estimated per sampled token (Schulman 2020,
 * "Approximating KL divergence"), used as a loss term against the reference.
 *
 *   k1 ("kl"):         logp − logp_ref                            unbiased, high variance, can be < 0
 *   k3 ("low_var_kl"): exp(x) − x − 1,   x = logp_ref − logp      unbiased, low variance, always ≥ 0
 *
 * k3 matches verl's `kl_penalty(..., "low_var_kl")`: x is clamped to ±20 before exp and the
 * result to ±10 after (AgentGym-RL's older copy had only the ±10 clamp after; the clamp before exp
 * only matters past |x| = 10, where the result is clamped to 10 either way). The loss is the
 * token-mean over agent tokens (the paper's recipe: coefficient 1e-3 on k3).
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedMean } from './masked.ts';

export type KlEstimator = 'k1' | 'k3';

/** Clamp of x = logp_ref − logp before exp (verl: 20). */
export const KL_LOG_RATIO_CLAMP = 20;
/** Clamp of the k3 value after exp (verl: 10). */
export const KL_VALUE_CLAMP = 10;

/** Per-token KL estimate [B, T] (not masked). Call inside a tidy. */
export function klPerToken(logProbs: tf.Tensor, refLogProbs: tf.Tensor, estimator: KlEstimator): tf.Tensor {
  if (estimator === 'k1') return tf.sub(logProbs, refLogProbs);
  const x = tf.clipByValue(tf.sub(refLogProbs, logProbs), -KL_LOG_RATIO_CLAMP, KL_LOG_RATIO_CLAMP);
  const k3 = tf.sub(tf.sub(tf.exp(x), x), 1);
  return tf.clipByValue(k3, -KL_VALUE_CLAMP, KL_VALUE_CLAMP);
}

export type KlTerms = {
  /** token-mean of the chosen estimator: the KL loss term before its coefficient */
  kl: tf.Scalar;
  /** token-mean of k1, for logging whatever the estimator */
  klK1: tf.Scalar;
};

/** Token-mean KL to the reference over agent tokens; only the two scalars survive. */
export function klLoss(
  logProbs: tf.Tensor,
  refLogProbs: tf.Tensor,
  mask: tf.Tensor,
  estimator: KlEstimator = 'k3',
): KlTerms {
  return tf.tidy(() => ({
    kl: maskedMean(klPerToken(logProbs, refLogProbs, estimator), mask),
    klK1: maskedMean(klPerToken(logProbs, refLogProbs, 'k1'), mask),
  }));
}
