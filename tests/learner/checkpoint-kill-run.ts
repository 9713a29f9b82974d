/** The small training run shared by checkpoint-kill.test.ts and its child process. */
import type { TrainingOptions } from '../../actors/training-system.ts';

export const KILL_RUN: Omit<TrainingOptions, 'steps'> = {
  env: 'babyai', backend: 'cpu', learnerThreads: 1, tasksPerStep: 1, groupSize: 2, schedule: 'fixed:2', seed: 11,
  corpusTasks: 4, checkpointEvery: 1, evalEpisodes: 0, minibatch: 4,
  model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 },
};
