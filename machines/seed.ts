/** Pure seed derivation: a run seed and indices give independent, reproducible 32-bit seeds. */
export function deriveSeed(seed: number, ...indices: readonly number[]): number {
  // splitmix32-style mixing; deterministic across platforms (32-bit integer maths only).
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const index of indices) {
    h = Math.imul(h ^ (index + 0x7f4a7c15), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h;
}
