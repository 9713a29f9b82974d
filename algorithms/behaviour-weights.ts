/**
 * The behaviour-policy correction of asynchronous training: decoupled PPO (Hilton et al. 2021,
 * "Batch size-invariance for policy optimization"; AReaL uses it for asynchronous RL) with
 * truncated importance weights (verl's TIS, IMPALA's truncated ρ).
 *
 * Three policies meet in an asynchronous step:
 *   π_behav  the weights that sampled the tokens, up to `maxStaleness` versions old; their
 *            log-probs were recorded at sampling time;
 *   π_prox   the learner's weights at the start of this step (its own scores of the rows,
 *            computed once before any update);
 *   π_θ      the weights being updated.
 *
 *   w_t        = min(π_prox(a_t) / π_behav(a_t), cap)        a constant: no gradient flows into it
 *   ratio_t    = π_θ(a_t) / π_prox(a_t)                       clipped to [1 − ε, 1 + ε] as in PPO
 *   loss_t     = w_t · max(−A_t·ratio_t, −A_t·clip(ratio_t))
 *
 * Why this variant. Standard PPO with the stale log-probs as "old" would clip the ratio π_θ/π_behav:
 * the trust region would sit around a policy the learner left K updates ago, so a stale token's
 * ratio can start outside [1 − ε, 1 + ε] and get no gradient at all, or the clip would let π_θ
 * drift far from where the learner is. Decoupling keeps the trust region around the current
 * weights (π_prox) and moves the off-policy correction into w, which is unbiased for the
 * π_prox-expectation. Truncating w at `cap` bounds its variance (a token π_behav found unlikely
 * and π_prox likes would otherwise dominate the batch) at the price of a small bias toward π_behav.
 * AReaL drops the tokens above its cap instead; truncation keeps their (bounded) signal.
 *
 * This file computes w on the host from plain arrays (it is a constant of the loss); the loss
 * applies it (policy-loss.ts `importanceWeights`).
 */
import { AlgorithmError } from './algorithm-error.ts';

/** Log-ratio clamp before exp, as policy-loss.ts clamps the PPO log-ratio. */
const LOG_WEIGHT_CLAMP = 20;

export type BehaviourWeights = {
  /** w_t on mask-1 tokens, 0 elsewhere. */
  weights: Float32Array;
  /** Mask-1 tokens counted. */
  tokens: number;
  /** Σ w_t over them (after truncation). */
  weightSum: number;
  /** Tokens whose weight was cut to `cap`. */
  truncated: number;
};

/**
 * w_t = min(exp(prox_t − behav_t), cap) on the mask-1 tokens of one row (or a flat batch).
 * `cap` must be ≥ 1: a cap below 1 would shrink even on-policy tokens.
 */
export function behaviourWeights(
  proxLogProbs: ArrayLike<number>,
  behavLogProbs: ArrayLike<number>,
  mask: ArrayLike<number>,
  cap: number,
): BehaviourWeights {
  if (!(cap >= 1)) throw new AlgorithmError('ALGO_BAD_BATCH', `importanceCap must be ≥ 1, got ${cap}`);
  const n = mask.length;
  if (proxLogProbs.length !== n || behavLogProbs.length !== n) {
    throw new AlgorithmError('ALGO_BAD_BATCH', `proxLogProbs (${proxLogProbs.length}) and behavLogProbs (${behavLogProbs.length}) must have the mask's length ${n}`);
  }
  const weights = new Float32Array(n);
  let tokens = 0;
  let weightSum = 0;
  let truncated = 0;
  for (let i = 0; i < n; i++) {
    if (mask[i] !== 1) continue;
    const logW = Math.min(Math.max((proxLogProbs[i] as number) - (behavLogProbs[i] as number), -LOG_WEIGHT_CLAMP), LOG_WEIGHT_CLAMP);
    const raw = Math.exp(logW);
    const w = raw > cap ? cap : raw;
    if (raw > cap) truncated += 1;
    weights[i] = w;
    tokens += 1;
    weightSum += w;
  }
  return { weights, tokens, weightSum, truncated };
}
