/**
 * Small real runs to feed the dashboard, shared by the browser tests (tests/dashboard/) and the
 * screenshot script (dashboard/screenshots.ts): a tiny GRPO training on BabyAI with a run
 * directory (charts, trajectories), and a random-agent rollout of 64 concurrent episodes on a
 * slowed BabyAI with one stalling task (episode board, stall alarm).
 */
import { createRolloutSystem, type RolloutSystem } from '../../actors/rollout-system.ts';
import { createTrainingSystem, type TrainingOptions, type TrainingSystem } from '../../actors/training-system.ts';
import { getEnv } from '../../envs/index.ts';
import { slowEnv } from './slow-env.ts';

/** A one-layer model and 4 tasks × G=2 per step: a learner step takes well under a second. */
export const TINY_TRAINING: Omit<TrainingOptions, 'steps'> = {
  env: 'babyai', backend: 'wasm', algo: 'grpo', tasksPerStep: 4, groupSize: 2, schedule: 'scaling:[2,3]@3', seed: 1,
  corpusTasks: 8, checkpointEvery: 0, evalEpisodes: 0, epochs: 1, minibatch: 8,
  model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
};

export function tinyTraining(out: string, steps: number, overrides: Partial<TrainingOptions> = {}): TrainingSystem {
  return createTrainingSystem({ ...TINY_TRAINING, steps, out, ...overrides });
}

export interface BoardRolloutOptions {
  readonly episodes?: number;
  readonly concurrency?: number;
  readonly stepMs?: number;
  /** How long the stalling task's first step takes (ms). */
  readonly stallMs?: number;
}

/** Random agent, BabyAI test split, every step slowed; the 6th test task stalls once per episode. */
export function boardRollout(options: BoardRolloutOptions = {}): { system: RolloutSystem; stallTaskId: string } {
  const babyai = getEnv('babyai');
  const stallTaskId = babyai.tasks('test')[5] as string;
  const env = slowEnv(babyai, { stepMs: options.stepMs ?? 60, stallTaskId, stallMs: options.stallMs ?? 2_500 });
  const system = createRolloutSystem({
    env, agent: 'random', split: 'test', episodes: options.episodes ?? 256, concurrency: options.concurrency ?? 64,
    schedule: 'fixed:12', seed: 3, runId: 'board-demo',
  });
  return { system, stallTaskId };
}
