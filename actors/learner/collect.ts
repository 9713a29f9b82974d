/**
 * The `collectRollouts` effect: one learner step's rollouts, composed from the rollout system
 * (actors/rollout-system.ts) rather than a second runtime. The step's tasks, each repeated G times
 * in a row, become the train split of a wrapper env definition; the horizon is the curriculum's
 * for this step (`fixed:<h>`); the seed is derived from (run seed, step), so a resumed run replays
 * the same episodes. The policy records each released episode's token windows, matched to its
 * output by episode id once the rollout has finished.
 */
import type { Observer } from 'rxjs';
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { deriveSeed } from '../../machines/seed.ts';
import type { FilteredPolicy, RecordedEpisode } from '../../policy/observation-filter.ts';
import type { RolloutSummary, RunEvent } from '../../streams/events.ts';
import { createRolloutSystem, type RolloutSystem } from '../rollout-system.ts';
import { slotsFor, tasksForStep } from './task-sampler.ts';

export interface CollectedEpisode {
  readonly output: EpisodeOutput;
  /** Index of the task group (⌊slot / G⌋): the G rollouts of one task share it. */
  readonly group: number;
  /** The policy's token windows and action lists; undefined when the agent never acted (e.g. aborted at reset). */
  readonly record: RecordedEpisode | undefined;
}

export interface CollectedStep {
  readonly step: number;
  readonly horizon: number;
  /** Every attempt, aborted ones included, in (slot, attempt) order — never in finishing order. */
  readonly episodes: readonly CollectedEpisode[];
  readonly summary: RolloutSummary;
  readonly seconds: number;
}

export interface CollectOptions {
  readonly env: EnvDefinition;
  readonly policy: FilteredPolicy;
  readonly step: number;
  readonly horizon: number;
  readonly seed: number;
  readonly tasksPerStep: number;
  readonly groupSize: number;
  readonly concurrency: number;
  readonly maxRetries?: number;
  readonly envTimeoutMs?: number;
  /** Receives the rollout's events (not its completion: the training stream goes on). */
  readonly events?: Partial<Observer<RunEvent>>;
  /** Receives the rollout system while it runs, so a stop can cancel it. */
  readonly onSystem?: (system: RolloutSystem | undefined) => void;
}

/** The env as the step sees it: the train split is this step's slot list. */
export function stepEnv(env: EnvDefinition, slots: readonly string[]): EnvDefinition {
  return {
    spec: env.spec,
    tasks: (split: Split) => (split === 'train' ? slots : env.tasks(split)),
    make: () => env.make(),
    ...(env.oracle ? { oracle: env.oracle.bind(env) } : {}),
  };
}

export async function collectStep(options: CollectOptions): Promise<CollectedStep> {
  const { env, policy, step, groupSize } = options;
  const tasks = tasksForStep(env.tasks('train'), options.tasksPerStep, options.seed, step);
  const slots = slotsFor(tasks, groupSize);
  const outputs: EpisodeOutput[] = [];
  const started = performance.now();
  const system = createRolloutSystem({
    env: stepEnv(env, slots),
    agent: policy,
    split: 'train',
    episodes: slots.length,
    concurrency: options.concurrency,
    schedule: `fixed:${options.horizon}`,
    seed: deriveSeed(options.seed, step),
    runId: `step-${step}`,
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
    onEpisode: (output) => outputs.push(output),
  });
  const forwarding = options.events?.next ? system.events.subscribe({ next: (e) => options.events?.next?.(e) }) : undefined;
  options.onSystem?.(system);
  let summary: RolloutSummary;
  try {
    summary = await system.run();
  } finally {
    options.onSystem?.(undefined);
    forwarding?.unsubscribe();
  }
  outputs.sort((a, b) => a.slot - b.slot || a.attempt - b.attempt);
  const episodes = outputs.map((output) => ({
    output,
    group: Math.floor(output.slot / groupSize),
    record: policy.take(output.episodeId),
  }));
  policy.clearRecords();
  return { step, horizon: options.horizon, episodes, summary, seconds: (performance.now() - started) / 1000 };
}
