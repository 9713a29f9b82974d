import { describe, expect, it } from 'vitest';
import { gaeAdvantages } from '../../algorithms/gae.ts';

// One row, T = 7:  I a a O O a O   → agent tokens 1, 2, 5; R = 1 on position 5.
// Critic values at the agent tokens: V1 = 0.5, V2 = 0.4, V5 = 0.6. The values at instruction
// and observation positions are 9 — garbage that must never be read.
const row = {
  batchSize: 1,
  seqLen: 7,
  mask: [0, 1, 1, 0, 0, 1, 0],
  values: [9, 0.5, 0.4, 9, 9, 0.6, 9],
  rewards: [1],
  groupIds: [0],
};

describe('gaeAdvantages', () => {
  it('bootstraps across the observation gap with the next agent token (γ = 0.9, λ = 0.8)', () => {
    // γλ = 0.72. Right to left over agent tokens:
    //   t=5: δ = 1 + 0.9·0 − 0.6 = 0.4                A5 = 0.4
    //   t=2: δ = 0 + 0.9·V5 − V2 = 0.54 − 0.4 = 0.14  A2 = 0.14 + 0.72·0.4 = 0.428
    //   t=1: δ = 0 + 0.9·V2 − V1 = 0.36 − 0.5 = −0.14 A1 = −0.14 + 0.72·0.428 = 0.16816
    // returns = A + V: 0.66816, 0.828, 1.0
    const { advantages, returns } = gaeAdvantages(row, { gamma: 0.9, lambda: 0.8, normAdvantages: false });
    expect(advantages[1]).toBeCloseTo(0.16816, 6);
    expect(advantages[2]).toBeCloseTo(0.428, 6);
    expect(advantages[5]).toBeCloseTo(0.4, 6);
    expect(returns[1]).toBeCloseTo(0.66816, 6);
    expect(returns[2]).toBeCloseTo(0.828, 6);
    expect(returns[5]).toBeCloseTo(1.0, 6);
    for (const t of [0, 3, 4, 6]) {
      expect(advantages[t]).toBe(0);
      expect(returns[t]).toBe(0);
    }
  });

  it('whitens the advantages over agent tokens (returns stay raw)', () => {
    // {0.16816, 0.428, 0.4}: mean = 0.332053; unbiased var = 0.040684/2 = 0.020342, std = 0.142625
    //   (0.16816 − 0.332053)/0.142625 = −1.149124, (0.428 − …)/… = 0.672722, (0.4 − …)/… = 0.476402
    const { advantages, returns } = gaeAdvantages(row, { gamma: 0.9, lambda: 0.8 });
    expect(advantages[1]).toBeCloseTo(-1.149124, 4);
    expect(advantages[2]).toBeCloseTo(0.672722, 4);
    expect(advantages[5]).toBeCloseTo(0.476402, 4);
    expect(returns[2]).toBeCloseTo(0.828, 6);
  });

  it('defaults to γ = λ = 1: A_t = R − V_t and every return is the outcome', () => {
    // A1 = 1 − 0.5 = 0.5, A2 = 1 − 0.4 = 0.6, A5 = 1 − 0.6 = 0.4
    const { advantages, returns } = gaeAdvantages(row, { normAdvantages: false });
    expect([1, 2, 5].map((t) => advantages[t])).toEqual([0.5, 0.6, 0.4].map(Math.fround));
    [1, 2, 5].forEach((t) => expect(returns[t]).toBeCloseTo(1, 6));
  });

  it('treats each row of a batch as its own episode', () => {
    // Row 1 repeats row 0 with R = 0 (γ = λ = 1, so A_t = 0 − V_t):
    //   A5 = 0 − 0.6 = −0.6,  A2 = (0.6 − 0.4) − 0.6 = −0.4,  A1 = (0.4 − 0.5) − 0.4 = −0.5.
    // Nothing flows between the rows.
    const two = {
      batchSize: 2,
      seqLen: 7,
      mask: [...row.mask, ...row.mask],
      values: [...row.values, ...row.values],
      rewards: [1, 0],
      groupIds: [0, 0],
    };
    const { advantages } = gaeAdvantages(two, { normAdvantages: false });
    expect([1, 2, 5].map((t) => advantages[t])).toEqual([0.5, 0.6, 0.4].map(Math.fround));
    expect([8, 9, 12].map((t) => advantages[t])).toEqual([-0.5, -0.4, -0.6].map(Math.fround));
  });

  it('needs critic values', () => {
    const { values: _values, ...noValues } = row;
    expect(() => gaeAdvantages(noValues)).toThrow(expect.objectContaining({ code: 'ALGO_MISSING_INPUT' }));
  });
});
