/** Row indices ordered by length, shortest first (ties keep their order): rows padded together then waste less. */
export function byLength(lengths: readonly number[]): number[] {
  return lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
}
