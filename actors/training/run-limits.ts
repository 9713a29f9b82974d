/** The run-level limits `train` and `sft` share, checked before anything loads or starts. */
export function checkRunLimits(options: { readonly learnerThreads?: number; readonly maxMinutes?: number }): void {
  const { learnerThreads, maxMinutes } = options;
  if (learnerThreads !== undefined && learnerThreads !== 1 && learnerThreads !== 2) {
    throw new Error(`learnerThreads must be 1 or 2, got ${learnerThreads}`);
  }
  if (maxMinutes !== undefined && !(Number.isFinite(maxMinutes) && maxMinutes > 0)) {
    throw new Error(`maxMinutes must be a positive number of minutes, got ${maxMinutes}`);
  }
}
