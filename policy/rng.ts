/**
 * A small seeded PRNG (mulberry32) and seed mixing. Policies never call Math.random(): every
 * draw comes from a generator seeded by the episode's seed and turn, so a decision does not
 * depend on which batch it landed in or on how many other episodes drew before it.
 */

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

/** mulberry32: 32-bit state, period 2^32, good enough for sampling tokens and actions. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return {
    next(): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Mixes integers into one 32-bit seed (murmur3 finaliser per part), e.g. `mixSeed(seed, turn)`. */
export function mixSeed(...parts: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    let k = Math.trunc(part) >>> 0;
    // Fold in the high bits of seeds beyond 32 bits.
    k ^= Math.trunc(part / 4294967296) >>> 0;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The generator for one decision: depends only on the episode's seed and the turn. */
export const turnRng = (seed: number, turn: number): Rng => mulberry32(mixSeed(seed, turn));
