/**
 * Asynchronous training's two settings (TrainingConfig.async; `train --async`): how stale a
 * trajectory group may be, and where the objective truncates its importance weights
 * (algorithms/behaviour-weights.ts). No imports, so the command line can read the defaults
 * without loading the learner.
 */

export interface AsyncSettings {
  /** Versions a group's weights may lag the learner's when it is trained on; older groups are dropped. 0: none. */
  readonly maxStaleness: number;
  /** Cap C of the behaviour weights w = min(π_prox/π_behav, C); ≥ 1. */
  readonly importanceCap: number;
}

/**
 * One version of lag (rollouts of step s + 1 run while the learner trains step s) and verl's
 * truncated-importance-sampling cap of 2.
 */
export const asyncDefaults: AsyncSettings = { maxStaleness: 1, importanceCap: 2 };

/** The settings with defaults for what is not given; an error names a bad field. */
export function resolveAsync(given: Partial<AsyncSettings>): AsyncSettings {
  const { maxStaleness, importanceCap } = { ...asyncDefaults, ...given };
  if (!(Number.isInteger(maxStaleness) && maxStaleness >= 0)) throw new Error(`async.maxStaleness must be an integer ≥ 0, got ${maxStaleness}`);
  if (!(Number.isFinite(importanceCap) && importanceCap >= 1)) throw new Error(`async.importanceCap must be a number ≥ 1, got ${importanceCap}`);
  return { maxStaleness, importanceCap };
}
