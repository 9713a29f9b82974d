import { describe, expect, it } from 'vitest';
import { reinforcePlusPlusAdvantages, reinforcePlusPlusFromTokenRewards } from '../../algorithms/reinforce-plus-plus.ts';
import { maskedWhiten } from '../../algorithms/whiten.ts';

// T = 8:  row 0  I I a a O a a O  (agent 2, 3, 5, 6)   R = 1
//         row 1  I a a O O a P P  (agent 1, 2, 5)      R = 0
const MASK_0 = [0, 0, 1, 1, 0, 1, 1, 0];
const MASK_1 = [0, 1, 1, 0, 0, 1, 0, 0];
const batch = { batchSize: 2, seqLen: 8, mask: [...MASK_0, ...MASK_1], rewards: [1, 0], groupIds: [0, 1] };
const at = (xs: Float32Array, positions: number[]) => positions.map((i) => xs[i] as number);

describe('reinforcePlusPlusAdvantages', () => {
  it('discounts per agent token across observation gaps (γ = 0.5)', () => {
    // Reward 1 on row 0's last agent token (6). Walking left over agent tokens only:
    //   G6 = 1,  G5 = 0.5·1 = 0.5,  (4 is an observation: skipped, not a step)
    //   G3 = 0.5·0.5 = 0.25,  G2 = 0.125.   Row 1: all 0.
    const { returns, advantages } = reinforcePlusPlusAdvantages(batch, { gamma: 0.5 });
    expect(at(returns, [2, 3, 5, 6])).toEqual([0.125, 0.25, 0.5, 1]);
    expect(at(returns, [0, 1, 4, 7])).toEqual([0, 0, 0, 0]);
    expect(at(returns, [9, 10, 13])).toEqual([0, 0, 0]);
    // Whitened over the 7 agent tokens {0.125, 0.25, 0.5, 1, 0, 0, 0}:
    //   mean = 1.875/7 = 0.267857; unbiased var = 0.825893/6 = 0.137649; std = 0.371011
    //   (1 − 0.267857)/0.371011 = 1.973375;  (0 − 0.267857)/0.371011 = −0.721966
    expect(advantages[6]).toBeCloseTo(1.973375, 5);
    expect(advantages[2]).toBeCloseTo(-0.385049, 5);
    expect(advantages[9]).toBeCloseTo(-0.721966, 5);
    expect(advantages[4]).toBe(0); // observation
  });

  it('with γ = 1 gives every agent token the outcome, then whitens over the batch', () => {
    // Returns: 1 on row 0's 4 agent tokens, 0 on row 1's 3. mean = 4/7.
    //   unbiased var = (4·(3/7)² + 3·(4/7)²)/6 = (36/49 + 48/49)/6 = 2/7, std = 0.534522
    //   (1 − 4/7)/0.534522 = 0.801784;  (0 − 4/7)/0.534522 = −1.069045
    const { returns, advantages } = reinforcePlusPlusAdvantages(batch);
    expect(at(returns, [2, 3, 5, 6])).toEqual([1, 1, 1, 1]);
    at(advantages, [2, 3, 5, 6]).forEach((x) => expect(x).toBeCloseTo(0.801784, 5));
    at(advantages, [9, 10, 13]).forEach((x) => expect(x).toBeCloseTo(-1.069045, 5));
  });

  it('folds a per-token k1 KL penalty −β·(logp_old − logp_ref) into the agent-token rewards', () => {
    // One row, T = 5: I a a O a, R = 1 on position 4; β = 0.1, γ = 1.
    //   old − ref: pos 1: 0.5, pos 2: −0.2, pos 3 (observation): 5 — ignored, pos 4: 1.0
    //   rewards:   r1 = −0.05,  r2 = +0.02,  r4 = 1 − 0.1 = 0.9
    //   returns:   G4 = 0.9,  G2 = 0.02 + 0.9 = 0.92,  G1 = −0.05 + 0.92 = 0.87
    const oneRow = {
      batchSize: 1,
      seqLen: 5,
      mask: [0, 1, 1, 0, 1],
      rewards: [1],
      groupIds: [0],
      oldLogProbs: [0, -0.5, -1.2, -3, -1.0],
      refLogProbs: [0, -1.0, -1.0, -8, -2.0],
    };
    const { returns } = reinforcePlusPlusAdvantages(oneRow, { klRewardCoef: 0.1 });
    expect(returns[1]).toBeCloseTo(0.87, 6);
    expect(returns[2]).toBeCloseTo(0.92, 6);
    expect(returns[3]).toBe(0);
    expect(returns[4]).toBeCloseTo(0.9, 6);
  });

  it('asks for log-probs when the KL penalty is on', () => {
    expect(() => reinforcePlusPlusAdvantages(batch, { klRewardCoef: 0.1 })).toThrow(
      expect.objectContaining({ code: 'ALGO_MISSING_INPUT' }),
    );
  });

  it('ignores rewards written on masked positions (use placeOutcomeRewards)', () => {
    const tokenRewards = new Float32Array(16);
    tokenRewards[4] = 1; // an observation token of row 0
    const { returns } = reinforcePlusPlusFromTokenRewards(tokenRewards, batch.mask, batch);
    expect(Array.from(returns).every((x) => x === 0)).toBe(true);
  });
});

describe('maskedWhiten', () => {
  it('uses the unbiased variance and leaves off-mask positions at 0', () => {
    // {1, 2, 3} on the mask: mean 2, unbiased var 1 → −1, 0, 1; the 100 is off-mask.
    const w = maskedWhiten([1, 100, 2, 3], [1, 0, 1, 1]);
    expect(w[0]).toBeCloseTo(-1, 6);
    expect(w[1]).toBe(0);
    expect(w[2]).toBeCloseTo(0, 6);
    expect(w[3]).toBeCloseTo(1, 6);
  });

  it('returns zeros instead of dividing by zero with fewer than two agent tokens', () => {
    expect(Array.from(maskedWhiten([5, 7], [0, 1]))).toEqual([0, 0]);
    expect(Array.from(maskedWhiten([5, 7], [0, 0]))).toEqual([0, 0]);
  });
});
