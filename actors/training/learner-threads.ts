/** Starts the second learner thread (learner/data-parallel.ts) when the run uses two (limits: run-limits.ts). */
import os from 'node:os';
import { DataParallelGrads } from '../../learner/data-parallel.ts';
import type { RunModels } from '../../learner/run-models.ts';

/**
 * The second learner thread, or undefined for one. Default: two on the WebAssembly backend
 * (single-threaded under Node) when the machine has two or more cores.
 */
export async function startLearnerThreads(backend: string, models: RunModels, requested: number | undefined): Promise<DataParallelGrads | undefined> {
  const threads = requested ?? (backend === 'wasm' && os.availableParallelism() >= 2 ? 2 : 1);
  if (threads !== 2) return undefined;
  return DataParallelGrads.start({ backend, config: models.model.config, names: models.optimizer.params.map(([name]) => name) });
}

/**
 * Runs `body` on an opened run's models with its learner threads, then closes the threads and
 * frees the models whatever happened: the shape every training and SFT run shares.
 */
export async function withLearnerThreads<T>(
  opened: { readonly backend: string; readonly models: RunModels },
  requested: number | undefined,
  body: (parallel: DataParallelGrads | undefined) => Promise<T>,
): Promise<T> {
  let parallel: DataParallelGrads | undefined;
  try {
    parallel = await startLearnerThreads(opened.backend, opened.models, requested);
    return await body(parallel);
  } finally {
    await parallel?.close();
    opened.models.dispose();
  }
}
