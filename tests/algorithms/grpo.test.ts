import { describe, expect, it } from 'vitest';
import { grpoAdvantages, grpoSequenceAdvantages } from '../../algorithms/grpo.ts';

// Four sequences, T = 8, two layouts with observation gaps (a agent, O observation, P padding):
//   I I a a O a a O   → agent positions 2, 3, 5, 6
//   I a a O O a P P   → agent positions 1, 2, 5
const MASK_A = [0, 0, 1, 1, 0, 1, 1, 0];
const MASK_B = [0, 1, 1, 0, 0, 1, 0, 0];
const batch = {
  batchSize: 4,
  seqLen: 8,
  mask: [...MASK_A, ...MASK_B, ...MASK_A, ...MASK_B],
  rewards: [1, 0, 0, 0.5],
  groupIds: ['t1', 't1', 't1', 't2'],
};

describe('grpoSequenceAdvantages', () => {
  it('normalises by the group mean and the unbiased std (torch.std)', () => {
    // Group t1: rewards 1, 0, 0. mean = 1/3.
    //   squared deviations (2/3)² + (1/3)² + (1/3)² = 4/9 + 1/9 + 1/9 = 2/3
    //   unbiased variance = (2/3)/(3 − 1) = 1/3, std = sqrt(1/3) = 0.577350
    //   A = (1 − 1/3)/0.577350 = 1.154701;  A = (0 − 1/3)/0.577350 = −0.577350
    // (the biased std sqrt(2/9) = 0.471405 would give 1.414214 instead)
    // Group t2 has one member: verl uses mean 0, std 1 → A = 0.5/(1 + 1e-6) = 0.4999995.
    const a = grpoSequenceAdvantages(batch.rewards, batch.groupIds);
    expect(a[0]).toBeCloseTo(1.154701, 5);
    expect(a[1]).toBeCloseTo(-0.57735, 5);
    expect(a[2]).toBeCloseTo(-0.57735, 5);
    expect(a[3]).toBeCloseTo(0.4999995, 6);
  });

  it('gives 0 to a group whose rewards are all equal', () => {
    // std = 0 → (R − mean)/(0 + 1e-6) = 0/1e-6 = 0
    expect(Array.from(grpoSequenceAdvantages([1, 1, 0, 0], ['a', 'a', 'b', 'b']))).toEqual([0, 0, 0, 0]);
  });

  it('only centres with normByStd: false (Dr. GRPO)', () => {
    // t1: 1 − 1/3 = 0.666667, 0 − 1/3 = −0.333333; t2 singleton: 0.5 − 0 = 0.5
    const a = grpoSequenceAdvantages(batch.rewards, batch.groupIds, { normByStd: false });
    expect(a[0]).toBeCloseTo(2 / 3, 6);
    expect(a[1]).toBeCloseTo(-1 / 3, 6);
    expect(a[3]).toBeCloseTo(0.5, 6);
  });
});

describe('grpoAdvantages', () => {
  it('broadcasts each advantage over its agent tokens only, across observation gaps', () => {
    const { advantages, returns } = grpoAdvantages(batch);
    const row = (b: number) => Array.from(advantages.slice(b * 8, b * 8 + 8));
    const A0 = 1.154701;
    [0, 0, A0, A0, 0, A0, A0, 0].forEach((x, t) => expect(row(0)[t]).toBeCloseTo(x, 5));
    const A1 = -0.57735;
    [0, A1, A1, 0, 0, A1, 0, 0].forEach((x, t) => expect(row(1)[t]).toBeCloseTo(x, 5));
    expect(Array.from(returns)).toEqual(Array.from(advantages));
  });
});
