/**
 * The first steps of an evaluation: its configuration from the options (checked), the evaluation
 * directory opened for it (created, or resumed when it holds this evaluation), and the slots of
 * the (task, sample) pairs still without a result.
 */
import type { Split } from '../envs/contract.ts';
import { pickTasks } from '../envs/pick-tasks.ts';
import type { RolloutSlot } from '../actors/rollout-system.ts';
import { configDifferences, type EvalConfig } from './eval-config.ts';
import { EvalError } from './eval-error.ts';
import type { EvalDir } from './eval-files.ts';
import { pairKey } from './eval-results.ts';
import type { EvalEpisodeRecord } from './eval-record.ts';
import type { RunEvaluationOptions } from './run-eval.ts';

export interface EvalPlan {
  readonly config: EvalConfig;
  readonly split: Split;
  /** The whole split's tasks: a slot's key is `sample × |split| + task index`. */
  readonly splitTasks: readonly string[];
  /** The tasks evaluated, in the order they run: `tasks` of the split, chosen by the pick (envs/pick-tasks.ts). */
  readonly taskIds: readonly string[];
}

function positive(name: string, value: number): void {
  if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

export function evalPlan(options: RunEvaluationOptions): EvalPlan {
  const { env, samples: n } = options;
  const split = options.split ?? 'test';
  const splitTasks = env.tasks(split);
  positive('samples', n);
  if (options.tasks !== undefined) positive('tasks', options.tasks);
  if (options.maxEpisodes !== undefined) positive('maxEpisodes', options.maxEpisodes);
  const count = options.tasks ?? splitTasks.length;
  const pick = options.pick ?? 'first';
  const taskIds = pickTasks(env, split, { count, pick, shuffle: options.shuffle === true, seed: options.seed ?? 0 });
  if (taskIds.length === 0) throw new Error(`env "${env.spec.id}" has no ${split} tasks`);
  // Recorded only when the tasks are not the split's first N in order, so older evaluations still resume.
  const order = [pick === 'stratified' && count < splitTasks.length ? 'stratified' : '', options.shuffle ? 'shuffled' : ''].filter(Boolean).join(', ');
  const config: EvalConfig = {
    env: env.spec.id,
    split,
    agent: options.agentName ?? (typeof options.agent === 'string' ? options.agent : options.agent.name),
    n,
    tasks: taskIds.length,
    seed: options.seed ?? 0,
    horizon: options.horizon ?? env.spec.defaultHorizon,
    ...(order ? { order } : {}),
    ...(options.judge !== undefined ? { judge: options.judge } : {}),
    ...(options.agentOptions !== undefined ? { options: options.agentOptions } : {}),
  };
  return { config, split, splitTasks, taskIds };
}

/** Refuses a directory that holds another evaluation (or episodes without a config); writes the config of a new one. */
export function openEvalDir(dir: EvalDir, config: EvalConfig): void {
  const stored = dir.readConfig();
  if (stored) {
    const differences = configDifferences(stored, config);
    if (differences.length > 0) {
      throw new EvalError(
        'EVAL_CONFIG_MISMATCH',
        `${dir.root} holds another evaluation (${differences.join('; ')}); give another --out, or delete the directory to start over`,
      );
    }
  } else {
    if (dir.readEpisodes().records.length > 0) throw new EvalError('EVAL_CORRUPT', `${dir.episodesFile} has episodes but ${dir.configFile} is missing`);
    dir.writeConfig(config);
  }
}

/** The pairs without a result, sample-major, so an interrupted evaluation has whole passes over the tasks first. */
export function missingSlots(plan: EvalPlan, done: ReadonlyMap<string, EvalEpisodeRecord>, maxEpisodes: number | undefined): RolloutSlot[] {
  const slots: RolloutSlot[] = [];
  const indexOf = new Map(plan.splitTasks.map((taskId, index) => [taskId, index]));
  for (let sample = 0; sample < plan.config.n; sample++) {
    plan.taskIds.forEach((taskId) => {
      // The key is the task's index in the split, so a task keeps its seed whichever tasks are picked.
      if (!done.has(pairKey(taskId, sample))) slots.push({ taskId, key: sample * plan.splitTasks.length + (indexOf.get(taskId) as number) });
    });
  }
  return slots.slice(0, maxEpisodes ?? slots.length);
}
