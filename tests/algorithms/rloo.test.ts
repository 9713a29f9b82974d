import { describe, expect, it } from 'vitest';
import { AlgorithmError } from '../../algorithms/batch.ts';
import { rlooAdvantages, rlooSequenceAdvantages } from '../../algorithms/rloo.ts';

const rewards = [1, 0, 0, 1, 1, 0, 0, 1];
const groupIds = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c'];

describe('rlooSequenceAdvantages', () => {
  it('subtracts the leave-one-out mean, n/(n−1)·(R − mean)', () => {
    // Group a (n = 4): mean 0.5 → 4/3·(1 − 0.5) = 2/3, 4/3·(0 − 0.5) = −2/3.
    //   check R=1: others 0, 0, 1 → mean 1/3 → 1 − 1/3 = 2/3 ✓
    // Group b (n = 3): mean 1/3 → 3/2·(2/3) = 1, 3/2·(−1/3) = −1/2.
    //   check R=0: others 1, 0 → mean 1/2 → 0 − 1/2 = −1/2 ✓
    // Group c (n = 1): no other rollout, no baseline → 0.
    const a = rlooSequenceAdvantages(rewards, groupIds);
    const expected = [2 / 3, -2 / 3, -2 / 3, 2 / 3, 1, -0.5, -0.5, 0];
    expected.forEach((x, i) => expect(a[i]).toBeCloseTo(x, 6));
  });

  it('throws ALGO_RLOO_SINGLETON_GROUP on a group of one when asked to', () => {
    expect(() => rlooSequenceAdvantages(rewards, groupIds, { singletonGroup: 'error' })).toThrow(
      expect.objectContaining({ code: 'ALGO_RLOO_SINGLETON_GROUP' }),
    );
    expect(() => rlooSequenceAdvantages(rewards, groupIds, { singletonGroup: 'error' })).toThrow(AlgorithmError);
  });
});

describe('rlooAdvantages', () => {
  it('broadcasts over agent tokens and skips observation tokens', () => {
    // Two rollouts of one task, T = 6: I a O a a O  and  I a a O a P; rewards 1, 0.
    // n = 2, mean 0.5 → 2·(±0.5) = ±1.
    const mask = [0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0];
    const batch = { batchSize: 2, seqLen: 6, mask, rewards: [1, 0], groupIds: [7, 7] };
    const { advantages, returns } = rlooAdvantages(batch);
    expect(Array.from(advantages)).toEqual([0, 1, 0, 1, 1, 0, 0, -1, -1, 0, -1, 0]);
    expect(Array.from(returns)).toEqual(Array.from(advantages));
  });
});
