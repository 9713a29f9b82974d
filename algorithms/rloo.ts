/**
 * RLOO advantage (Ahmadian et al. 2024): REINFORCE with a leave-one-out baseline.
 *
 *   A_i = R_i − mean_{j≠i} R_j = n/(n−1) · (R_i − mean_group), broadcast over agent tokens.
 *
 * Matches verl's `compute_rloo_outcome_advantage` for groups of n ≥ 2. AgentGym-RL's RLOO
 * raised at start (docs/architecture.md, "What we keep from AgentGym-RL, and what we fix"); this one runs.
 *
 * Departure, a group of one: there is no other rollout to form a baseline. verl silently keeps
 * the raw reward R_i, i.e. trains that sequence with plain unbaselined REINFORCE next to the
 * baselined others. We give it advantage 0 by default (`singletonGroup: 'zero'`: no baseline,
 * no signal), or throw `ALGO_RLOO_SINGLETON_GROUP` with `singletonGroup: 'error'`.
 */
import { AlgorithmError, broadcastOverAgentTokens, checkBatch, groupIndices } from './batch.ts';
import type { AdvantageInput, AdvantageResult } from './batch.ts';

// ---------------------------------------------------------------------------------------------
// Args
// ---------------------------------------------------------------------------------------------

export type RlooArgs = {
  /** what a group with a single rollout gets: advantage 0, or an AlgorithmError */
  singletonGroup: 'zero' | 'error';
};

export const rlooDefaults: RlooArgs = { singletonGroup: 'zero' };

// ---------------------------------------------------------------------------------------------
// Algorithm
// ---------------------------------------------------------------------------------------------

/** Per-sequence RLOO advantages [B] from outcome rewards and group ids. */
export function rlooSequenceAdvantages(
  rewards: ArrayLike<number>,
  groupIds: AdvantageInput['groupIds'],
  args: Partial<RlooArgs> = {},
): Float32Array {
  const { singletonGroup } = { ...rlooDefaults, ...args };
  const out = new Float32Array(rewards.length);
  for (const [id, members] of groupIndices(groupIds)) {
    const n = members.length;
    if (n === 1) {
      if (singletonGroup === 'error') {
        throw new AlgorithmError(
          'ALGO_RLOO_SINGLETON_GROUP',
          `RLOO needs at least 2 rollouts per task; group ${JSON.stringify(id)} has 1`,
        );
      }
      continue; // advantage stays 0
    }
    const mean = members.reduce((a, i) => a + (rewards[i] as number), 0) / n;
    for (const i of members) out[i] = (n / (n - 1)) * ((rewards[i] as number) - mean);
  }
  return out;
}

/** RLOO advantages and returns [B·T]: the per-sequence advantage on every agent token. */
export function rlooAdvantages(batch: AdvantageInput, args: Partial<RlooArgs> = {}): AdvantageResult {
  checkBatch(batch);
  const advantages = broadcastOverAgentTokens(rlooSequenceAdvantages(batch.rewards, batch.groupIds, args), batch);
  return { advantages, returns: advantages.slice() };
}
