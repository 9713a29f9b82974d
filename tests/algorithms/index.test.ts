import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  estimateAdvantages,
  gaeAdvantages,
  grpoAdvantages,
  parseAlgorithm,
  reinforcePlusPlusAdvantages,
  rlooAdvantages,
  type Algorithm,
} from '../../algorithms/index.ts';

// Two tasks × two rollouts, T = 5 (I a O a O / I a a O P).
const batch = {
  batchSize: 4,
  seqLen: 5,
  mask: [0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0],
  values: new Float32Array(20).fill(0.25),
  rewards: [1, 0, 0.5, 0.5],
  groupIds: ['x', 'x', 'y', 'y'],
};

describe('estimateAdvantages', () => {
  it('lists the algorithms', () => {
    expect(ALGORITHMS).toEqual(['grpo', 'ppo', 'reinforce++', 'rloo']);
  });

  it('dispatches to each estimator with its args', () => {
    expect(estimateAdvantages('grpo', batch)).toEqual(grpoAdvantages(batch));
    expect(estimateAdvantages('rloo', batch)).toEqual(rlooAdvantages(batch));
    expect(estimateAdvantages('reinforce++', batch, { gamma: 0.5 })).toEqual(reinforcePlusPlusAdvantages(batch, { gamma: 0.5 }));
    expect(estimateAdvantages('ppo', batch, { lambda: 0.9 })).toEqual(gaeAdvantages(batch, { lambda: 0.9 }));
  });

  it('names the known algorithms when given an unknown one', () => {
    expect(() => estimateAdvantages('x' as Algorithm, batch)).toThrow('unknown algorithm "x"; known: grpo, ppo, reinforce++, rloo');
    expect(() => parseAlgorithm('dpo')).toThrow(expect.objectContaining({ code: 'ALGO_UNKNOWN' }));
    expect(parseAlgorithm('reinforce++')).toBe('reinforce++');
  });

  it('rejects a batch whose shapes do not fit', () => {
    expect(() => estimateAdvantages('grpo', { ...batch, rewards: [1, 0] })).toThrow(
      expect.objectContaining({ code: 'ALGO_BAD_BATCH', message: 'rewards has length 2, expected 4' }),
    );
    expect(() => estimateAdvantages('grpo', { ...batch, mask: batch.mask.map((m) => m * 2) })).toThrow(/expected 0 or 1/);
  });
});
