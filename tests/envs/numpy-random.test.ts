import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NumpyRng, seedSequenceState } from '../../envs/numpy-random.ts';

interface Fixture {
  readonly calls: readonly (readonly [string, number, number])[];
  readonly seeds: readonly { readonly seed: string; readonly state: readonly string[]; readonly values: readonly number[] }[];
}

// Written by numpy itself: tests/envs/fixtures/numpy-random.py (command in its header).
const fixture = JSON.parse(readFileSync(new URL('./fixtures/numpy-random.json', import.meta.url), 'utf8')) as Fixture;

describe('NumpyRng against numpy (Generator(PCG64(SeedSequence(seed))))', () => {
  it.each(fixture.seeds.map((s) => [s.seed, s] as const))('seed %s: SeedSequence.generate_state(4, uint64)', (_, s) => {
    expect(seedSequenceState(BigInt(s.seed)).map(String)).toEqual(s.state);
  });

  it.each(fixture.seeds.map((s) => [s.seed, s] as const))('seed %s: integers, random and uniform in one stream', (_, s) => {
    const rng = new NumpyRng(BigInt(s.seed));
    const values = fixture.calls.map(([name, low, high]) =>
      name === 'integers' ? rng.range(low, high) : name === 'random' ? rng.next() : rng.uniform(low, high),
    );
    expect(values).toEqual(s.values);
  });

  it('takes no draw for a one-value range, as numpy (minigrid relies on it for 1-wide rooms)', () => {
    const a = new NumpyRng(3);
    const b = new NumpyRng(3);
    expect(a.range(4, 5)).toBe(4);
    expect(a.range(0, 1000)).toBe(b.range(0, 1000));
  });

  it('refuses what it does not port', () => {
    expect(() => new NumpyRng(-1)).toThrow(/non-negative/);
    expect(() => new NumpyRng(0).range(0, 2 ** 33)).toThrow(/not ported/);
    expect(() => new NumpyRng(0).range(3, 3)).toThrow(/low < high/);
  });
});
