/**
 * REINFORCE++ advantage (Hu 2025, arXiv 2501.03262): token-level discounted returns of the
 * outcome reward (optionally with a per-token KL penalty folded into the rewards), whitened
 * over every agent token of the batch.
 *
 *   r_t   = [t is the last agent token]·R − β·(logp_old_t − logp_ref_t)      (agent tokens only)
 *   G_t   = r_t + γ·G_next        where "next" is the next AGENT token of the sequence
 *   A_t   = (G_t − mean) / sqrt(var + 1e-8)    mean/var (unbiased) over all agent tokens
 *
 * Matches verl's `compute_reinforce_plus_plus_outcome_advantage` (returns, `masked_whiten`,
 * advantages × mask; returns are left unwhitened) and verl's `apply_kl_penalty` with the "kl"
 * (k1) estimator for the reward-side KL.
 *
 * Departures, both for the multi-turn layout: verl zeroes the running return at every masked
 * token ("reset after EOS"), which is right when the only masked tokens are trailing padding but
 * would cut the return at every observation; here observation tokens are skipped — they carry no
 * reward and γ counts agent tokens only. And the reward sits on the last agent token
 * (reward-placement.ts), not on a masked token where the mask would drop it.
 */
import { AlgorithmError, checkBatch } from './batch.ts';
import type { AdvantageInput, AdvantageResult } from './batch.ts';
import { placeOutcomeRewards } from './reward-placement.ts';
import { maskedWhiten } from './whiten.ts';

// ---------------------------------------------------------------------------------------------
// Args
// ---------------------------------------------------------------------------------------------

export type ReinforcePlusPlusArgs = {
  /** discount per agent token; observation tokens are not steps (paper's scripts: 1) */
  gamma: number;
  /** β of the KL penalty folded into the token rewards, −β·(logp_old − logp_ref); 0 turns it off */
  klRewardCoef: number;
};

export const reinforcePlusPlusDefaults: ReinforcePlusPlusArgs = { gamma: 1, klRewardCoef: 0 };

// ---------------------------------------------------------------------------------------------
// Algorithm
// ---------------------------------------------------------------------------------------------

/**
 * REINFORCE++ from token-level rewards [B·T]. Rewards on masked positions are ignored (as in
 * verl, which multiplies by the mask) — place them with `placeOutcomeRewards`.
 */
export function reinforcePlusPlusFromTokenRewards(
  tokenRewards: ArrayLike<number>,
  mask: ArrayLike<number>,
  shape: { batchSize: number; seqLen: number },
  gamma: number = reinforcePlusPlusDefaults.gamma,
): AdvantageResult {
  const { batchSize: B, seqLen: T } = shape;
  const returns = new Float32Array(B * T);

  // --- discounted returns over agent tokens, right to left -------------------------------------
  for (let b = 0; b < B; b++) {
    let running = 0;
    for (let t = T - 1; t >= 0; t--) {
      const i = b * T + t;
      if (mask[i] !== 1) continue; // observation / instruction / padding: not a step
      running = (tokenRewards[i] as number) + gamma * running;
      returns[i] = running;
    }
  }

  // --- whiten over all agent tokens of the batch -------------------------------------------------
  return { advantages: maskedWhiten(returns, mask), returns };
}

/** REINFORCE++ advantages and returns [B·T] for a batch. */
export function reinforcePlusPlusAdvantages(
  batch: AdvantageInput,
  args: Partial<ReinforcePlusPlusArgs> = {},
): AdvantageResult {
  checkBatch(batch);
  const { gamma, klRewardCoef } = { ...reinforcePlusPlusDefaults, ...args };
  const tokenRewards = placeOutcomeRewards(batch);

  // --- optional KL penalty in the reward (k1 per token, as verl's apply_kl_penalty) -------------
  if (klRewardCoef !== 0) {
    const { oldLogProbs, refLogProbs } = batch;
    if (!oldLogProbs || !refLogProbs) {
      throw new AlgorithmError('ALGO_MISSING_INPUT', 'klRewardCoef ≠ 0 needs oldLogProbs and refLogProbs');
    }
    for (let i = 0; i < tokenRewards.length; i++) {
      if (batch.mask[i] !== 1) continue;
      const kl = (oldLogProbs[i] as number) - (refLogProbs[i] as number);
      tokenRewards[i] = (tokenRewards[i] as number) - klRewardCoef * kl;
    }
  }

  return reinforcePlusPlusFromTokenRewards(tokenRewards, batch.mask, batch, gamma);
}
