/** Avg@n and Pass@k against hand computations (issue 23 acceptance), overall and per category. */
import { describe, expect, it } from 'vitest';
import { aggregate, passAtK, type SampleResult } from '../../eval/pass-at-k.ts';

/** n = 4 samples of each task; `successes` of them succeed (the first ones). */
function task(taskId: string, category: string, successes: number, n = 4, scores?: readonly number[]): SampleResult[] {
  return Array.from({ length: n }, (_, sample) => ({
    taskId,
    category,
    sample,
    success: sample < successes,
    ...(scores ? { score: scores[sample] as number } : {}),
  }));
}

describe('passAtK (Chen et al. 2021, unbiased)', () => {
  it('matches 1 − C(n−c, k)/C(n, k) worked by hand', () => {
    // n = 4, c = 1: C(3,2)/C(4,2) = 3/6, C(3,3)/C(4,3) = 1/4.
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 12);
    expect(passAtK(4, 1, 3)).toBeCloseTo(0.75, 12);
    expect(passAtK(4, 1, 4)).toBe(1);
    // n = 4, c = 2: C(2,2)/C(4,2) = 1/6; with k = 3 there are not 3 failures to draw.
    expect(passAtK(4, 2, 2)).toBeCloseTo(5 / 6, 12);
    expect(passAtK(4, 2, 3)).toBe(1);
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(5, 5, 1)).toBe(1);
  });

  it('stays exact where the binomials overflow a double', () => {
    const binomial = (n: bigint, k: bigint) => {
      let out = 1n;
      for (let i = 0n; i < k; i++) out = (out * (n - i)) / (i + 1n);
      return out;
    };
    // C(1100, 500) ≈ 10^329, past Number.MAX_VALUE; the ratio is taken in BigInt with 30 digits.
    const exact = 1 - Number((binomial(1090n, 500n) * 10n ** 30n) / binomial(1100n, 500n)) / 1e30;
    expect(passAtK(1100, 10, 500)).toBeCloseTo(exact, 12);
  });

  it('rejects k > n, c > n and non-integers', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(3, 1.5, 1)).toThrow(RangeError);
  });
});

describe('aggregate', () => {
  // n = 4; tasks with c = 0, 2 (category A) and c = 1, 4 (category B).
  const results = [...task('a0', 'A', 0), ...task('b1', 'B', 1), ...task('a2', 'A', 2), ...task('b4', 'B', 4)];

  it('gives Avg@n and Pass@k overall as computed by hand', () => {
    const out = aggregate(results, 4);
    // Avg@4 = mean(0/4, 1/4, 2/4, 4/4) = 1.75 / 4.
    expect(out.avgAtN).toBeCloseTo(0.4375, 12);
    // pass@1 = Avg@4; pass@2 = mean(0, 1/2, 5/6, 1) = 7/12; pass@3 = mean(0, 3/4, 1, 1) = 11/16; pass@4 = 3/4.
    expect(out.passAtK['1']).toBeCloseTo(0.4375, 12);
    expect(out.passAtK['2']).toBeCloseTo(7 / 12, 12);
    expect(out.passAtK['3']).toBeCloseTo(0.6875, 12);
    expect(out.passAtK['4']).toBeCloseTo(0.75, 12);
    expect(Object.keys(out.passAtK)).toEqual(['1', '2', '3', '4']);
    expect(out).toMatchObject({ tasks: 4, samples: 16 });
    expect(out.meanScore).toBeUndefined();
  });

  it('gives the same metrics per category', () => {
    const { categories } = aggregate(results, 4);
    expect(Object.keys(categories)).toEqual(['A', 'B']);
    // A: c = 0, 2. Avg = mean(0, 1/2); pass@2 = mean(0, 5/6); pass@3 = mean(0, 1); pass@4 = mean(0, 1).
    const a = categories['A']!;
    expect(a.tasks).toBe(2);
    expect(a.avgAtN).toBeCloseTo(0.25, 12);
    expect(a.passAtK['2']).toBeCloseTo(5 / 12, 12);
    expect(a.passAtK['3']).toBeCloseTo(0.5, 12);
    expect(a.passAtK['4']).toBeCloseTo(0.5, 12);
    // B: c = 1, 4. Avg = mean(1/4, 1); pass@2 = mean(1/2, 1); pass@3 = mean(3/4, 1); pass@4 = 1.
    const b = categories['B']!;
    expect(b.avgAtN).toBeCloseTo(0.625, 12);
    expect(b.passAtK['2']).toBeCloseTo(0.75, 12);
    expect(b.passAtK['3']).toBeCloseTo(0.875, 12);
    expect(b.passAtK['4']).toBe(1);
  });

  it('means the env score where results carry one (SciWorld 0–100)', () => {
    const scored = [...task('m', 'Measure', 1, 2, [100, 40]), ...task('f', 'Find', 0, 2, [10, 0])];
    const out = aggregate(scored, 2);
    expect(out.meanScore).toBeCloseTo(37.5, 12); // (100 + 40 + 10 + 0) / 4
    expect(out.categories['Measure']?.meanScore).toBeCloseTo(70, 12);
    expect(out.categories['Find']?.meanScore).toBeCloseTo(5, 12);
  });

  it('scores an incomplete task on the samples it has, and Pass@k only for k ≤ its samples', () => {
    // Task p has 2 of 4 samples (1 success); a0, b4 are complete.
    const partial = [...task('a0', 'A', 0), ...task('p', 'A', 1, 2), ...task('b4', 'B', 4)];
    const out = aggregate(partial, 4);
    expect(out.avgAtN).toBeCloseTo((0 + 0.5 + 1) / 3, 12);
    // pass@2 over all three: mean(0, passAtK(2,1,2) = 1, 1); pass@3 over a0 and b4 only.
    expect(out.passAtK['2']).toBeCloseTo(2 / 3, 12);
    expect(out.passAtK['3']).toBeCloseTo(0.5, 12);
    expect(out).toMatchObject({ tasks: 3, samples: 10 });
  });

  it('has no categories when results carry none, and refuses double counting', () => {
    expect(aggregate([{ taskId: 't', sample: 0, success: true }], 1).categories).toEqual({});
    expect(() => aggregate([...task('t', 'A', 1, 2), { taskId: 't', category: 'A', sample: 1, success: true }], 2)).toThrow(/given twice/);
    expect(() => aggregate(task('t', 'A', 1, 3), 2)).toThrow(/outside 0..1/);
    expect(() => aggregate([{ taskId: 't', category: 'A', sample: 0, success: true }, { taskId: 't', category: 'B', sample: 1, success: true }], 2)).toThrow(/two categories/);
  });
});
