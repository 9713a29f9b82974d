/**
 * The run-level limits `train` and `sft` share: checking `learnerThreads` and `maxMinutes`, and
 * starting the second learner thread (learner/data-parallel.ts) when the run uses two.
 */
import os from 'node:os';
import { DataParallelGrads } from '../../learner/data-parallel.ts';
import type { RunModels } from '../../learner/run-models.ts';

export function checkRunLimits(options: { readonly learnerThreads?: number; readonly maxMinutes?: number }): void {
  const { learnerThreads, maxMinutes } = options;
  if (learnerThreads !== undefined && learnerThreads !== 1 && learnerThreads !== 2) {
    throw new Error(`learnerThreads must be 1 or 2, got ${learnerThreads}`);
  }
  if (maxMinutes !== undefined && !(Number.isFinite(maxMinutes) && maxMinutes > 0)) {
    throw new Error(`maxMinutes must be a positive number of minutes, got ${maxMinutes}`);
  }
}

/**
 * The second learner thread, or undefined for one. Default: two on the WebAssembly backend
 * (single-threaded under Node) when the machine has two or more cores.
 */
export async function startLearnerThreads(backend: string, models: RunModels, requested: number | undefined): Promise<DataParallelGrads | undefined> {
  const threads = requested ?? (backend === 'wasm' && os.availableParallelism() >= 2 ? 2 : 1);
  if (threads !== 2) return undefined;
  return DataParallelGrads.start({ backend, config: models.model.config, names: models.optimizer.params.map(([name]) => name) });
}
