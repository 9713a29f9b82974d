import { describe, expect, it } from 'vitest';
import { parseEnvCounts, percentile } from '../../bench/web.ts';

describe('bench web helpers', () => {
  it('percentile is the nearest rank', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile([42], 95)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
  });

  it('reads --envs and refuses what is not a list of counts', () => {
    expect(parseEnvCounts('16,32')).toEqual([16, 32]);
    expect(() => parseEnvCounts('16,x')).toThrow(/--envs .* got '16,x'/);
    expect(() => parseEnvCounts('0')).toThrow(/--envs/);
  });
});
