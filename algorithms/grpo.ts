/**
 * GRPO advantage (Shao et al. 2024, DeepSeekMath), outcome supervision only.
 *
 *   A_i = (R_i − mean_group) / (std_group + ε), broadcast over sequence i's agent tokens.
 *
 * Matches verl's `compute_grpo_outcome_advantage` (and AgentGym-RL's copy of it):
 * - std is `torch.std`, i.e. the UNBIASED sample std (divides by n − 1);
 * - a group of one gets mean 0 and std 1, so its advantage is R_i / (1 + ε) — the raw reward;
 * - a group whose rewards are all equal gets advantage 0 (std 0, numerator 0);
 * - returns are the advantages (GRPO has no critic).
 * verl sums the token-level rewards of each row to get R_i; we read `rewards` directly, which is
 * the same number and cannot be lost by where it is placed.
 */
import { broadcastOverAgentTokens, checkBatch, groupIndices } from './batch.ts';
import type { AdvantageInput, AdvantageResult } from './batch.ts';

// ---------------------------------------------------------------------------------------------
// Args
// ---------------------------------------------------------------------------------------------

export type GrpoArgs = {
  /** added to the group std before dividing (verl: 1e-6) */
  epsilon: number;
  /** divide by the group std: true is GRPO; false is Dr. GRPO (mean-centering only) */
  normByStd: boolean;
};

export const grpoDefaults: GrpoArgs = { epsilon: 1e-6, normByStd: true };

// ---------------------------------------------------------------------------------------------
// Algorithm
// ---------------------------------------------------------------------------------------------

/** Per-sequence GRPO advantages [B] from outcome rewards and group ids. */
export function grpoSequenceAdvantages(
  rewards: ArrayLike<number>,
  groupIds: AdvantageInput['groupIds'],
  args: Partial<GrpoArgs> = {},
): Float32Array {
  const { epsilon, normByStd } = { ...grpoDefaults, ...args };
  const out = new Float32Array(rewards.length);
  for (const members of groupIndices(groupIds).values()) {
    const scores = members.map((i) => rewards[i] as number);
    const n = scores.length;
    // verl: a singleton group is "normalised" with mean 0, std 1.
    const mean = n === 1 ? 0 : scores.reduce((a, r) => a + r, 0) / n;
    const std = n === 1 ? 1 : Math.sqrt(scores.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1));
    members.forEach((i, k) => {
      const centred = (scores[k] as number) - mean;
      out[i] = normByStd ? centred / (std + epsilon) : centred;
    });
  }
  return out;
}

/** GRPO advantages and returns [B·T]: the per-sequence advantage on every agent token. */
export function grpoAdvantages(batch: AdvantageInput, args: Partial<GrpoArgs> = {}): AdvantageResult {
  checkBatch(batch);
  const advantages = broadcastOverAgentTokens(grpoSequenceAdvantages(batch.rewards, batch.groupIds, args), batch);
  return { advantages, returns: advantages.slice() };
}
