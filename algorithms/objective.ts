/**
 * The total training objective, as the paper's recipe combines it (docs/architecture.md, "What we keep from AgentGym-RL"):
 *
 *   loss = lossPolicy + lossKl + lossEntropy + lossValue
 *   lossKl      =  klCoef      · token-mean KL(π ‖ π_ref)   (k3, coefficient 1e-3)
 *   lossEntropy = −entropyCoef · token-mean entropy          (bonus 1e-3: more entropy, lower loss)
 *   lossValue   =  valueCoef   · clipped value loss         (PPO with a critic head only, else 0)
 *
 * Each `loss*` term is already weighted by its coefficient and `loss` is their sum: log every
 * key, differentiate `loss`, and do not add `loss` to the other terms ({@link LOSS_TERMS} lists
 * the parts). Terms that are off (coefficient 0 and no input) are scalar zeros, so the record
 * always has the same `loss*` keys. The stats are scalars for logging: `clipFraction`,
 * `approxKl` (k1 to the sampling policy), `kl` (to the reference), `entropy`, `valueClipFraction`
 * (the last three only when their inputs are given).
 *
 * For REINFORCE++ with the KL folded into the reward (`klRewardCoef`), set `klCoef: 0` here.
 *
 * Asynchronous training (decoupled PPO, behaviour-weights.ts): `oldLogProbs` are the proximal
 * policy's and `importanceWeights` the truncated π_prox/π_behav per token:
 *   lossPolicy = token-mean of w_t · max(−A_t·r_t, −A_t·clip(r_t, 1 − ε, 1 + ε)),  r_t = π_θ/π_prox
 * `clipFraction` and `approxKl` are then measured against π_prox.
 *
 * Inside `tf.variableGrads(f)` only the returned scalar survives f: read the stats with
 * {@link readScalars} inside f, or `tf.keep` them.
 */
import * as tf from '@tensorflow/tfjs-core';
import { AlgorithmError } from './batch.ts';
import { entropyLoss } from './entropy.ts';
import { klLoss, type KlEstimator } from './kl.ts';
import { policyLoss, policyLossDefaults, type PolicyLossArgs } from './policy-loss.ts';
import { valueLoss, valueLossDefaults, type ValueLossArgs } from './value-loss.ts';

// ---------------------------------------------------------------------------------------------
// Args
// ---------------------------------------------------------------------------------------------

export type ObjectiveArgs = PolicyLossArgs &
  ValueLossArgs & {
    /** coefficient of the KL-to-reference loss term (paper's recipe: 1e-3); 0 turns it off */
    klCoef: number;
    /** KL estimator of that term (paper's recipe: k3, verl "low_var_kl") */
    klEstimator: KlEstimator;
    /** coefficient of the entropy bonus (paper's recipe: 1e-3); 0 turns it off */
    entropyCoef: number;
    /** coefficient of the critic's value loss when it shares the optimizer (CleanRL vf_coef: 0.5) */
    valueCoef: number;
  };

export const objectiveDefaults: ObjectiveArgs = {
  ...policyLossDefaults,
  ...valueLossDefaults,
  klCoef: 1e-3,
  klEstimator: 'k3',
  entropyCoef: 1e-3,
  valueCoef: 0.5,
};

/** All [B, T] except `logits` [B, T, V]. */
export type ObjectiveInputs = {
  /** log-probs of the sampled tokens under the policy being trained */
  logProbs: tf.Tensor;
  /**
   * log-probs of the same tokens under the "old" policy of the clipped ratio: the sampling policy
   * (synchronous), or the proximal policy, the learner's weights at the start of the step
   * (asynchronous, with `importanceWeights`)
   */
  oldLogProbs: tf.Tensor;
  /**
   * Asynchronous training's behaviour correction (behaviour-weights.ts): w = min(π_prox/π_behav,
   * cap) per token, multiplying the policy term only (the KL and entropy terms are about π_θ
   * alone). Absent: synchronous, w = 1, computed exactly as without it.
   */
  importanceWeights?: tf.Tensor;
  advantages: tf.Tensor;
  mask: tf.Tensor;
  /** reference-policy log-probs; needed when klCoef ≠ 0 */
  refLogProbs?: tf.Tensor;
  /** full-vocabulary logits at each position; needed when entropyCoef ≠ 0 */
  logits?: tf.Tensor;
  /** PPO critic: new value predictions, the values used for GAE, and the GAE returns */
  values?: tf.Tensor;
  oldValues?: tf.Tensor;
  returns?: tf.Tensor;
};

export type ObjectiveTerms = {
  loss: tf.Scalar;
  lossPolicy: tf.Scalar;
  lossKl: tf.Scalar;
  lossEntropy: tf.Scalar;
  lossValue: tf.Scalar;
  clipFraction: tf.Scalar;
  approxKl: tf.Scalar;
  kl?: tf.Scalar;
  entropy?: tf.Scalar;
  valueClipFraction?: tf.Scalar;
};

/** The weighted parts whose sum is `loss`. */
export const LOSS_TERMS = ['lossPolicy', 'lossKl', 'lossEntropy', 'lossValue'] as const;

// ---------------------------------------------------------------------------------------------
// Objective
// ---------------------------------------------------------------------------------------------

export function objective(inputs: ObjectiveInputs, args: Partial<ObjectiveArgs> = {}): ObjectiveTerms {
  const a = { ...objectiveDefaults, ...args };
  const { logProbs, oldLogProbs, advantages, mask, refLogProbs, logits, values, oldValues, returns, importanceWeights } = inputs;
  if (a.klCoef !== 0 && !refLogProbs) throw missing('klCoef ≠ 0 needs refLogProbs');
  if (a.entropyCoef !== 0 && !logits) throw missing('entropyCoef ≠ 0 needs logits');
  if (values && (!oldValues || !returns)) throw missing('a value loss needs values, oldValues and returns');

  return tf.tidy(() => {
    const policy = policyLoss(logProbs, oldLogProbs, advantages, mask, a, importanceWeights);
    const kl = refLogProbs ? klLoss(logProbs, refLogProbs, mask, a.klEstimator).kl : undefined;
    const entropy = logits ? entropyLoss(logits, mask).entropy : undefined;
    const critic = values && oldValues && returns ? valueLoss(values, oldValues, returns, mask, a) : undefined;

    // --- weighted terms ------------------------------------------------------------------------
    const lossKl = kl && a.klCoef !== 0 ? tf.mul(a.klCoef, kl) : tf.scalar(0);
    const lossEntropy = entropy && a.entropyCoef !== 0 ? tf.mul(-a.entropyCoef, entropy) : tf.scalar(0);
    const lossValue = critic ? tf.mul(a.valueCoef, critic.lossValue) : tf.scalar(0);
    const loss = tf.addN([policy.lossPolicy, lossKl, lossEntropy, lossValue]);

    return {
      loss: loss as tf.Scalar,
      lossPolicy: policy.lossPolicy,
      lossKl: lossKl as tf.Scalar,
      lossEntropy: lossEntropy as tf.Scalar,
      lossValue: lossValue as tf.Scalar,
      clipFraction: policy.clipFraction,
      approxKl: policy.approxKl,
      ...(kl ? { kl } : {}),
      ...(entropy ? { entropy } : {}),
      ...(critic ? { valueClipFraction: critic.valueClipFraction } : {}),
    };
  });
}

/** Every scalar of a term record as a plain number (synchronous read; does not dispose). */
export function readScalars(terms: ObjectiveTerms): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(terms)) {
    if (value) out[key] = value.dataSync()[0] as number;
  }
  return out;
}

function missing(message: string): AlgorithmError {
  return new AlgorithmError('ALGO_MISSING_INPUT', message);
}
