/**
 * The `collectRollouts` effect: one learner step's rollouts, composed from the rollout system
 * (actors/rollout-system.ts) rather than a second runtime. The step's tasks, each repeated G times
 * in a row, become the train split of a wrapper env definition; the horizon is the curriculum's
 * for this step (`fixed:<h>`); the seed is derived from (run seed, step), so a resumed run replays
 * the same episodes. The policy records each released episode's token windows, matched to its
 * output by episode id once the rollout has finished.
 *
 * A step is never cut short by infrastructure (issue 24: pause, not degrade). Slots that settle
 * aborted after their retries are collected again, with the same seeds, in further rounds until
 * every slot has a scored episode: when the env servers are all unreachable the step first
 * pauses (`training.paused`), waits for one to come back, and resumes (`training.resumed`). Rounds
 * that follow no pause are bounded (`maxRounds`), so a failure that is not an outage fails the
 * step loudly instead of looping; a stopped run is never collected again.
 */
import type { Observer } from 'rxjs';
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import { envReachability, type EnvReachability } from '../../transport/remote/pool-definition.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { deriveSeed } from '../../machines/seed.ts';
import type { EpisodeResult, RolloutSummary, RunEvent } from '../../streams/events.ts';
import type { TrainingPaused, TrainingResumed } from '../../streams/training-events.ts';
import { systemClock, type RunClock } from '../clock.ts';
import { createRolloutSystem, type RolloutSlot, type RolloutSystem } from '../rollout-system.ts';
import { mergeSummaries } from '../summarize.ts';
import type { RecordingAgent } from './run-model.ts';
import { slotsFor, tasksForStep } from '../../learner/task-sampler.ts';
import type { CollectedStep } from '../../learner/collected-step.ts';

export interface CollectOptions {
  readonly env: EnvDefinition;
  readonly policy: RecordingAgent;
  readonly step: number;
  readonly horizon: number;
  readonly seed: number;
  readonly tasksPerStep: number;
  readonly groupSize: number;
  readonly concurrency: number;
  readonly maxRetries?: number;
  readonly maxLostRetries?: number;
  readonly envTimeoutMs?: number;
  /** Collections of aborted slots that follow no pause (the env was reachable) before the step fails. Default 5. */
  readonly maxRounds?: number;
  /** Ends a pause: the step then rejects (a stopped learner ignores it). */
  readonly signal?: AbortSignal;
  /** Time of the pause events. Default the system clock. */
  readonly clock?: RunClock;
  /** Receives the rollout's events (not its completion: the training stream goes on) and the pauses. */
  readonly events?: Partial<Observer<RunEvent | TrainingPaused | TrainingResumed>>;
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

/** Default of `CollectOptions.maxRounds`. */
export const MAX_COLLECT_ROUNDS = 5;

export async function collectStep(options: CollectOptions): Promise<CollectedStep> {
  const { env, policy, step, groupSize } = options;
  const clock = options.clock ?? systemClock;
  const tasks = tasksForStep(env.tasks('train'), options.tasksPerStep, options.seed, step);
  const slots = slotsFor(tasks, groupSize);
  const reach = envReachability(env);
  const maxRounds = options.maxRounds ?? MAX_COLLECT_ROUNDS;
  const outputs: { output: EpisodeOutput; round: number }[] = [];
  const summaries: RolloutSummary[] = [];
  const started = performance.now();
  let todo: RolloutSlot[] = slots.map((taskId, key) => ({ taskId, key }));
  let unpaused = 0;
  for (let round = 0; todo.length > 0; round++) {
    if (round > 0 || (reach !== undefined && !reach.isReachable())) {
      if (reach !== undefined && !reach.isReachable()) await pause(reach, todo.length);
      else if (++unpaused > maxRounds) throw new Error(`step ${step}: ${todo.length} slot(s) still aborted after ${maxRounds} more collection rounds (${reasonsOf(summaries.at(-1))}); not training on a batch cut short`);
    }
    const summary = await collectRound(todo, round, (output) => outputs.push({ output, round }));
    summaries.push(summary);
    const aborted = summary.results.filter((result) => result.outcome === 'aborted');
    // A stop cancels the rollout; its slots are not collected again (the learner discards the step).
    if (options.signal?.aborted || aborted.some((result) => result.abortReason === 'cancelled')) break;
    todo = aborted.map((result) => ({ taskId: slots[result.slot] as string, key: result.slot }));
  }
  outputs.sort((a, b) => a.output.slot - b.output.slot || a.round - b.round || a.output.attempt - b.output.attempt);
  const episodes = outputs.map(({ output }) => ({
    output,
    group: Math.floor(output.slot / groupSize),
    record: policy.take(output.episodeId),
  }));
  policy.clearRecords();
  return { step, horizon: options.horizon, episodes, summary: mergeSummaries(summaries, slots.length), rounds: summaries.length, seconds: (performance.now() - started) / 1000 };

  async function collectRound(roundSlots: readonly RolloutSlot[], round: number, onEpisode: (output: EpisodeOutput) => void): Promise<RolloutSummary> {
    const system = createRolloutSystem({
      env: stepEnv(env, slots),
      agent: policy,
      split: 'train',
      slots: roundSlots,
      concurrency: options.concurrency,
      schedule: `fixed:${options.horizon}`,
      seed: deriveSeed(options.seed, step),
      // Seeds come from (seed, slot key), so a later round replays its slots' episodes; the run id
      // differs so their episode ids (and the policy's records) never collide with the first round's.
      runId: round === 0 ? `step-${step}` : `step-${step}-r${round}`,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
      ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
      onEpisode,
    });
    const forwarding = options.events?.next ? system.events.subscribe({ next: (e) => options.events?.next?.(e) }) : undefined;
    options.onSystem?.(system);
    try {
      return await system.run();
    } finally {
      options.onSystem?.(undefined);
      forwarding?.unsubscribe();
    }
  }

  async function pause(reachability: EnvReachability, count: number): Promise<void> {
    const from = performance.now();
    const reason = `no env server reachable: ${reachability.describeServers()}`;
    options.events?.next?.({ type: 'training.paused', t: clock.now(), step, slots: count, reason });
    await reachability.whenReachable(options.signal);
    options.events?.next?.({ type: 'training.resumed', t: clock.now(), step, slots: count, pausedSeconds: (performance.now() - from) / 1000 });
  }
}

function reasonsOf(summary: RolloutSummary | undefined): string {
  const aborted = (summary?.results ?? []).filter((result: EpisodeResult) => result.outcome === 'aborted');
  const reasons = new Map<string, number>();
  for (const result of aborted) reasons.set(result.abortReason ?? 'unknown', (reasons.get(result.abortReason ?? 'unknown') ?? 0) + 1);
  return [...reasons].map(([reason, count]) => `${reason} ${count}`).join(', ');
}
