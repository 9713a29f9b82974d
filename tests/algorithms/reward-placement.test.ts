import { describe, expect, it } from 'vitest';
import { gaeFromTokenRewards } from '../../algorithms/gae.ts';
import { grpoAdvantages } from '../../algorithms/grpo.ts';
import { reinforcePlusPlusFromTokenRewards } from '../../algorithms/reinforce-plus-plus.ts';
import { lastAgentIndex, placeOutcomeReward, placeOutcomeRewards } from '../../algorithms/reward-placement.ts';

// Multi-turn rows, T = 8 (I instruction, O observation, a agent token, P padding):
//   row 0: I I a a O a a O   — the trajectory ends with a final observation
//   row 1: I a a O O a P P   — ends with the agent's action, then padding
const MASK_0 = [0, 0, 1, 1, 0, 1, 1, 0];
const MASK_1 = [0, 1, 1, 0, 0, 1, 0, 0];
const LENGTHS = [8, 6]; // non-padding tokens per row
const shape = { batchSize: 2, seqLen: 8 };
const mask = [...MASK_0, ...MASK_1];

/** AgentGym-RL's placement: the outcome on the last (non-padding) token of the sequence. */
function placeOnLastToken(rewards: number[]): Float32Array {
  const out = new Float32Array(16);
  rewards.forEach((r, b) => (out[b * 8 + (LENGTHS[b] as number) - 1] = r));
  return out;
}

describe('placeOutcomeReward', () => {
  it('puts the outcome on the last agent token, not on the trailing observation', () => {
    expect(lastAgentIndex(MASK_0)).toBe(6);
    expect(Array.from(placeOutcomeReward(MASK_0, 1))).toEqual([0, 0, 0, 0, 0, 0, 1, 0]);
  });

  it('skips trailing padding', () => {
    expect(Array.from(placeOutcomeReward(MASK_1, 0.5))).toEqual([0, 0, 0, 0, 0, 0.5, 0, 0]);
  });

  it('gives all zeros to a sequence without agent tokens', () => {
    expect(lastAgentIndex([0, 0, 0])).toBe(-1);
    expect(Array.from(placeOutcomeReward([0, 0, 0], 1))).toEqual([0, 0, 0]);
  });

  it('places every row of a batch', () => {
    const placed = placeOutcomeRewards({ ...shape, mask, rewards: [1, 0.5], groupIds: [0, 0] });
    expect(placed[6]).toBe(1);
    expect(placed[8 + 5]).toBe(0.5);
    expect(placed.reduce((a, r) => a + r, 0)).toBe(1.5);
  });
});

describe('regression, reference §1: reward on masked last token', () => {
  // Row 0 succeeded (R = 1), row 1 failed (R = 0); the critic is all zeros so that GAE's
  // advantages are made of the reward alone.
  const rewards = [1, 0];
  const values = new Float32Array(16);
  const ourPlacement = () => placeOutcomeRewards({ ...shape, mask, rewards, groupIds: [0, 0] });

  it('our placement keeps the reward for REINFORCE++', () => {
    // γ = 1: returns are 1 on row 0's 4 agent tokens, 0 on row 1's 3; whitened they are
    // (1 − 4/7)/sqrt(2/7) = 0.8018 and (0 − 4/7)/sqrt(2/7) = −1.0690 (see reinforce-plus-plus.test).
    const ours = reinforcePlusPlusFromTokenRewards(ourPlacement(), mask, shape);
    expect(ours.returns[2]).toBe(1);
    expect(ours.advantages[2]).toBeCloseTo(0.801784, 5);
    expect(ours.advantages[9]).toBeCloseTo(-1.069045, 5);
  });

  it('the original placement would have zeroed the REINFORCE++ advantages', () => {
    // The reward sits on row 0's position 7, an observation (mask 0): the mask drops it, every
    // return is 0, and whitening zeros gives zeros — no learning signal at all.
    const original = reinforcePlusPlusFromTokenRewards(placeOnLastToken(rewards), mask, shape);
    expect(Array.from(original.returns).every((x) => x === 0)).toBe(true);
    expect(Array.from(original.advantages).every((x) => x === 0)).toBe(true);
  });

  it('our placement keeps the reward for GAE; the original would have zeroed the advantages', () => {
    const args = { normAdvantages: false };
    const ours = gaeFromTokenRewards(ourPlacement(), values, mask, shape, args);
    // γ = λ = 1, V = 0: A_t = R − V_t = 1 on every agent token of row 0.
    expect([2, 3, 5, 6].map((t) => ours.advantages[t])).toEqual([1, 1, 1, 1]);
    const original = gaeFromTokenRewards(placeOnLastToken(rewards), values, mask, shape, args);
    expect(Array.from(original.advantages).every((x) => x === 0)).toBe(true);
  });

  it('GRPO reads the sequence reward and is unaffected either way', () => {
    // verl sums each row's token rewards to get R_i: both placements give back R = [1, 0].
    const rowSums = (placed: Float32Array) => [0, 1].map((b) => placed.slice(b * 8, b * 8 + 8).reduce((a, r) => a + r, 0));
    expect(rowSums(ourPlacement())).toEqual(rewards);
    expect(rowSums(placeOnLastToken(rewards))).toEqual(rewards);
    // One group of two, R = [1, 0]: mean 0.5, unbiased std √0.5, so A = ±0.5/√0.5 = ±0.7071 on
    // every agent token of its row (row 0's trailing observation, where the original placement
    // put the reward, included: it gets 0 like every non-agent token).
    const expected = mask.map((m, i) => (m === 0 ? 0 : i < 8 ? Math.SQRT1_2 : -Math.SQRT1_2));
    for (const placed of [ourPlacement(), placeOnLastToken(rewards)]) {
      const { advantages } = grpoAdvantages({ ...shape, mask, rewards: rowSums(placed), groupIds: [0, 0] });
      Array.from(advantages).forEach((a, i) => expect(a, `token ${i}`).toBeCloseTo(expected[i]!, 5));
    }
  });
});
