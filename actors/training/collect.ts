/**
 * The `collectRollouts` effect: one learner step's rollouts, composed from the rollout system
 * (actors/rollout-system.ts) rather than a second runtime. The step's tasks, each repeated G times
 * in a row, become the train split of a wrapper env definition; the horizon is the curriculum's
 * for this step (`fixed:<h>`); the seed is derived from (run seed, step), so a resumed run replays
 * the same episodes. The policy hands out each episode's token record on release, and it joins
 * the episode's output in its trajectory group (actors/buffer/group-assembler.ts), which is
 * handed on whole as soon as it is complete.
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
import { deriveSeed } from '../../machines/seed.ts';
import type { EpisodeResult, RolloutSummary, RunEvent } from '../../streams/events.ts';
import type { TrainingPaused, TrainingResumed } from '../../streams/training-events.ts';
import { systemClock, type RunClock } from '../clock.ts';
import { createRolloutSystem, type RolloutSlot, type RolloutSystem } from '../rollout-system.ts';
import { mergeSummaries } from '../summarize.ts';
import type { RecordingAgent } from './run-model.ts';
import { slotsFor, tasksForStep } from '../../learner/task-sampler.ts';
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { GroupAssembler } from '../buffer/group-assembler.ts';

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
  /** The step's groups to collect (indices into its tasks); default all of them. */
  readonly groups?: readonly number[];
  /**
   * How many times this producer collected groups of the step before (a group dropped as stale is
   * collected again): from 1 on, the episode ids say so (`step-N-c1-…`); seeds stay the slots'.
   */
  readonly collection?: number;
  /** Named as the groups' producer. Default `local`. */
  readonly producer?: string;
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

/** What a collection hands back besides its groups: every round's summaries merged. */
export interface CollectedGroups {
  readonly summary: RolloutSummary;
  /** Rollouts run: 1, plus one per collection of aborted slots. */
  readonly rounds: number;
  readonly seconds: number;
}

/**
 * Collects the groups `groups` of a step (all of them by default): slots index·G … index·G + G − 1
 * with the seeds and episode ids they have in the whole step, all in one rollout system. Each
 * group goes to `onGroup` as soon as each of its slots has a scored episode (no later attempt of
 * it can follow), with its episodes in (slot, round, attempt) order and their token records, which
 * the policy hands out on release. A stopped collection offers no partial group.
 */
export async function collectGroups(options: CollectOptions, onGroup: (group: TrajectoryGroup) => void): Promise<CollectedGroups> {
  const { env, policy, step, groupSize } = options;
  const clock = options.clock ?? systemClock;
  const tasks = tasksForStep(env.tasks('train'), options.tasksPerStep, options.seed, step);
  const slots = slotsFor(tasks, groupSize);
  const wanted = options.groups ?? tasks.map((_, index) => index);
  const reach = envReachability(env);
  const maxRounds = options.maxRounds ?? MAX_COLLECT_ROUNDS;
  const policyVersion = policy.version;
  const assembler = new GroupAssembler({ step, horizon: options.horizon, groupSize, tasks, policyVersion, producer: options.producer ?? 'local' }, onGroup);
  const summaries: RolloutSummary[] = [];
  const started = performance.now();
  let todo: RolloutSlot[] = wanted.flatMap((index) => Array.from({ length: groupSize }, (_, i) => index * groupSize + i)).map((key) => ({ taskId: slots[key] as string, key }));
  let unpaused = 0;
  for (let round = 0; todo.length > 0; round++) {
    if (round > 0 || (reach !== undefined && !reach.isReachable())) {
      if (reach !== undefined && !reach.isReachable()) await pause(reach, todo.length);
      else if (++unpaused > maxRounds) throw new Error(`step ${step}: ${todo.length} slot(s) still aborted after ${maxRounds} more collection rounds (${reasonsOf(summaries.at(-1))}); not training on a batch cut short`);
    }
    const summary = await collectRound(todo, round, assembler);
    summaries.push(summary);
    const aborted = summary.results.filter((result) => result.outcome === 'aborted');
    // A stop cancels the rollout; its slots are not collected again (the learner discards the step).
    if (options.signal?.aborted || aborted.some((result) => result.abortReason === 'cancelled')) break;
    todo = aborted.map((result) => ({ taskId: slots[result.slot] as string, key: result.slot }));
  }
  return { summary: mergeSummaries(summaries, wanted.length * groupSize), rounds: summaries.length, seconds: (performance.now() - started) / 1000 };

  async function collectRound(roundSlots: readonly RolloutSlot[], round: number, groups: GroupAssembler): Promise<RolloutSummary> {
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
      runId: `step-${step}${options.collection ? `-c${options.collection}` : ''}${round === 0 ? '' : `-r${round}`}`,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
      ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
      onRelease: (episodeId, released) => groups.released(episodeId, released),
      onEpisode: (output) => groups.episode(output, round),
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
