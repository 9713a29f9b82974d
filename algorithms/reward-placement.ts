/**
 * Where the outcome reward goes in a multi-turn sequence.
 *
 * The reward is written on the LAST AGENT TOKEN (the last position with mask == 1, normally the
 * closing `</act>` of the final action). AgentGym-RL wrote it on the last token of the sequence,
 * which in a multi-turn trajectory is an observation token (mask == 0); GAE and REINFORCE++
 * multiply token rewards by the mask, so the reward vanished and both learned from nothing but
 * the KL term (docs/architecture.md, "What we keep from AgentGym-RL, and what we fix"). GRPO and RLOO sum the rewards of the whole sequence
 * and were unaffected.
 */
import { rowOf, type AdvantageInput } from './batch.ts';

/** Index of the last position with mask == 1, or −1 when the sequence has no agent token. */
export function lastAgentIndex(mask: ArrayLike<number>): number {
  for (let t = mask.length - 1; t >= 0; t--) if (mask[t] === 1) return t;
  return -1;
}

/**
 * Token-level reward vector for one sequence: `reward` on the last agent token, 0 elsewhere.
 * A sequence without agent tokens has nowhere to hold a reward and gets all zeros (it has no
 * tokens to train on either).
 */
export function placeOutcomeReward(mask: ArrayLike<number>, reward: number): Float32Array {
  const tokenRewards = new Float32Array(mask.length);
  const last = lastAgentIndex(mask);
  if (last >= 0) tokenRewards[last] = reward;
  return tokenRewards;
}

/** {@link placeOutcomeReward} for every row of a batch: [B·T], row-major. */
export function placeOutcomeRewards(batch: AdvantageInput): Float32Array {
  const { batchSize: B, seqLen: T } = batch;
  const tokenRewards = new Float32Array(B * T);
  for (let b = 0; b < B; b++) {
    tokenRewards.set(placeOutcomeReward(rowOf(batch.mask, b, T), batch.rewards[b] as number), b * T);
  }
  return tokenRewards;
}
