/**
 * The clipped surrogate policy loss of PPO, shared by GRPO, REINFORCE++ and RLOO.
 *
 *   ratio_t = exp(logp_t − logp_old_t)
 *   loss_t  = max(−A_t·ratio_t, −A_t·clip(ratio_t, 1 − ε_low, 1 + ε_high))
 *   lossPolicy = token-mean of loss_t over every agent token of the batch
 *
 * Matches verl's `compute_policy_loss` with `loss_agg_mode: "token-mean"`: the log-ratio is
 * clamped to ±20 before exp, `clipFraction` is the share of agent tokens where the clipped term
 * won (−A·clip > −A·ratio), `approxKl` is the token-mean of logp_old − logp (k1, for logging).
 * Optional dual-clip (Ye et al. 2020) bounds the loss of negative-advantage tokens by −A·c; it is
 * off by default, as in AgentGym-RL (current verl turns it on with c = 3).
 *
 * Asynchronous training (behaviour-weights.ts): `oldLogProbs` are then the proximal policy's (the
 * learner's weights at the start of the step) and `importanceWeights` w_t = min(π_prox/π_behav, cap)
 * multiply each token's term after clipping: loss_t = w_t · max(…). They are data, not a function
 * of the weights, so no gradient flows into them; without them the loss is computed exactly as before (no multiply by ones).
 *
 * All tensors are [B, T]; the result scalars are the only tensors left alive.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedMean } from './masked.ts';

// ---------------------------------------------------------------------------------------------
// Args
// ---------------------------------------------------------------------------------------------

export type PolicyLossArgs = {
  /** ε: the ratio is clipped to [1 − ε, 1 + ε] (paper's recipe: 0.2) */
  clipRatio: number;
  /** separate lower ε (verl clip_ratio_low); defaults to clipRatio */
  clipRatioLow?: number;
  /** separate upper ε, e.g. DAPO's clip-higher 0.28 (verl clip_ratio_high); defaults to clipRatio */
  clipRatioHigh?: number;
  /** dual-clip bound c > 1 on −A·ratio for A < 0 (verl clip_ratio_c); undefined turns it off */
  clipRatioC?: number;
};

export const policyLossDefaults: PolicyLossArgs = { clipRatio: 0.2 };

/** Log-ratio clamp before exp, for numerical stability (verl: 20). */
export const LOG_RATIO_CLAMP = 20;

export type PolicyLossTerms = {
  lossPolicy: tf.Scalar;
  /** share of agent tokens where clipping changed the loss */
  clipFraction: tf.Scalar;
  /** token-mean of logp_old − logp: how far the update moved the policy (k1) */
  approxKl: tf.Scalar;
};

// ---------------------------------------------------------------------------------------------
// Loss
// ---------------------------------------------------------------------------------------------

export function policyLoss(
  logProbs: tf.Tensor,
  oldLogProbs: tf.Tensor,
  advantages: tf.Tensor,
  mask: tf.Tensor,
  args: Partial<PolicyLossArgs> = {},
  /** [B, T] truncated behaviour importance weights (asynchronous training); absent = 1 */
  importanceWeights?: tf.Tensor,
): PolicyLossTerms {
  const { clipRatio, clipRatioLow = clipRatio, clipRatioHigh = clipRatio, clipRatioC } = {
    ...policyLossDefaults,
    ...args,
  };
  if (clipRatioC !== undefined && !(clipRatioC > 1)) throw new RangeError(`clipRatioC must be > 1, got ${clipRatioC}`);

  return tf.tidy(() => {
    // --- importance ratio ----------------------------------------------------------------------
    const logRatio = tf.clipByValue(tf.sub(logProbs, oldLogProbs), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
    const ratio = tf.exp(logRatio);

    // --- clipped surrogate -----------------------------------------------------------------------
    const negAdv = tf.neg(advantages);
    const unclipped = tf.mul(negAdv, ratio);
    const clipped = tf.mul(negAdv, tf.clipByValue(ratio, 1 - clipRatioLow, 1 + clipRatioHigh));
    let perToken = tf.maximum(unclipped, clipped);

    // --- optional dual clip: bound the loss of A < 0 tokens by −A·c ------------------------------
    if (clipRatioC !== undefined) {
      const bounded = tf.minimum(perToken, tf.mul(negAdv, clipRatioC));
      perToken = tf.where(tf.less(advantages, 0), bounded, perToken);
    }

    // --- behaviour correction (decoupled PPO): a constant weight per token -----------------------
    if (importanceWeights !== undefined) perToken = tf.mul(perToken, importanceWeights);

    return {
      lossPolicy: maskedMean(perToken, mask),
      clipFraction: maskedMean(tf.cast(tf.greater(clipped, unclipped), 'float32'), mask),
      approxKl: maskedMean(tf.neg(logRatio), mask),
    };
  });
}
