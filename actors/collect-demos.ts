/**
 * Runs an agent on a split and returns its episodes as demos (`actorgym collect`), through the
 * ordinary rollout system. Slots are `episodes` tasks of the split (the first, or `pick`ed) × `samples`, keyed by
 * position, so every episode's seed and id depend only on (seed, task index, sample): the same
 * command gives the same demos, in task then sample order, whatever order episodes finish in.
 * Aborted episodes (infrastructure, not the agent) are never written; they are counted.
 */
import type { Observer } from 'rxjs';
import type { EnvDefinition, Split } from '../envs/contract.ts';
import { pickTasks, type TaskPick } from '../envs/pick-tasks.ts';
import type { EpisodeOutput } from '../machines/episode.machine.ts';
import type { RolloutSummary, RunEvent } from '../streams/events.ts';
import { createRolloutSystem, type AgentSpec } from './rollout-system.ts';
import type { Demo } from '../demos/demo.ts';
import { RecordingPolicy } from '../demos/recording-policy.ts';

/** Options of `collectDemos`: the env and agent, the split and episodes, and whether to keep only successes. */
export interface CollectDemosOptions {
  readonly env: EnvDefinition;
  readonly agent: AgentSpec;
  /** How the agent is named in each demo (the `--agent` spec). */
  readonly agentName: string;
  readonly split: Split;
  /** Tasks of the split (default: all of it); which ones: `pick`. */
  readonly episodes?: number;
  /** Which `episodes` tasks when fewer than the split: `first` (default) or `stratified` over categories (envs/pick-tasks.ts; the CLI's default). */
  readonly pick?: TaskPick;
  /** Take the tasks in an order shuffled by `seed` (default false). */
  readonly shuffle?: boolean;
  /** Episodes per task (default 1). */
  readonly samples?: number;
  readonly seed?: number;
  /** Default: the env's default horizon. */
  readonly horizon?: number;
  readonly concurrency?: number;
  readonly onlySuccess?: boolean;
  readonly agentTimeoutMs?: number;
  readonly envTimeoutMs?: number;
  /** Retries of an aborted slot (rollout system default 1); aborted for good, it is not written. */
  readonly maxRetries?: number;
  readonly maxLostRetries?: number;
  readonly events?: Partial<Observer<RunEvent>>;
  /** Aborting stops the run (running episodes end as cancelled) and `collectDemos` rejects: no partial set. */
  readonly signal?: AbortSignal;
}

/** What `collectDemos` returns: the demonstrations, the rollout summary they came from, and the scored and successful episode counts. */
export interface CollectedDemos {
  readonly demos: readonly Demo[];
  readonly summary: RolloutSummary;
  /** Scored episodes, and the ones left out by `onlySuccess`. */
  readonly episodes: number;
  /** Scored episodes that succeeded. */
  readonly successes: number;
  readonly filtered: number;
  /** Slots that ended aborted after their retries: not written. */
  readonly aborted: number;
}

/**
 * Runs an agent on `episodes` tasks of a split (`pick`) (`samples` each) through the rollout
 * system and returns the episodes as demos, in task then sample order: the same options give
 * the same demos. Aborted episodes are counted, never written; with `onlySuccess` only the
 * successful ones are kept. Rejects when `signal` aborts (no partial set).
 *
 * @example
 * const { demos } = await collectDemos({ env: getEnv('babyai'), agent: 'oracle', agentName: 'oracle', split: 'train', episodes: 50 });
 * writeDemos('demos/babyai.jsonl', demos);
 */
export async function collectDemos(options: CollectDemosOptions): Promise<CollectedDemos> {
  const { env, split } = options;
  const samples = options.samples ?? 1;
  if (!(Number.isInteger(samples) && samples >= 1)) throw new Error(`samples must be a positive integer, got ${samples}`);
  const all = env.tasks(split);
  if (all.length === 0) throw new Error(`env "${env.spec.id}" has no ${split} tasks`);
  const count = options.episodes ?? all.length;
  if (!(Number.isInteger(count) && count >= 1)) throw new Error(`episodes must be a positive integer, got ${count}`);
  if (count > all.length) throw new Error(`the ${split} split of ${env.spec.id} has ${all.length} tasks; --episodes ${count} would repeat tasks (use --samples for more episodes per task)`);
  if (options.signal?.aborted) throw new Error(`collect stopped: ${stopReason(options.signal)}`);
  const tasks = pickTasks(env, split, { count, pick: options.pick ?? 'first', shuffle: options.shuffle === true, seed: options.seed ?? 0 });
  const slots = tasks.flatMap((taskId, t) => Array.from({ length: samples }, (_, s) => ({ taskId, key: t * samples + s })));
  let recorder: RecordingPolicy | undefined;
  const outputs = new Map<number, EpisodeOutput>();
  const seed = options.seed ?? 0;
  const system = createRolloutSystem({
    env, agent: options.agent, split, slots, seed,
    runId: `collect-${seed}`,
    schedule: `fixed:${options.horizon ?? env.spec.defaultHorizon}`,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.agentTimeoutMs !== undefined ? { agentTimeoutMs: options.agentTimeoutMs } : {}),
    ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
    wrapPolicy: (policy) => (recorder = new RecordingPolicy(policy)),
    // The last attempt of each slot is its result; earlier (aborted) attempts are replaced.
    onEpisode: (output) => outputs.set(output.slot, output),
  });
  const forwarding = options.events?.next ? system.events.subscribe({ next: (e) => options.events?.next?.(e) }) : undefined;
  const stop = () => system.stop(stopReason(options.signal));
  options.signal?.addEventListener('abort', stop, { once: true });
  let summary: RolloutSummary;
  try {
    summary = await system.run();
  } finally {
    options.signal?.removeEventListener('abort', stop);
    forwarding?.unsubscribe();
  }
  if (options.signal?.aborted) throw new Error(`collect stopped: ${stopReason(options.signal)}`);
  const demos: Demo[] = [];
  let scored = 0;
  let successes = 0;
  let aborted = 0;
  for (const slot of slots) {
    const output = outputs.get(slot.key);
    if (output === undefined || output.outcome === 'aborted') {
      aborted += 1;
      continue;
    }
    scored += 1;
    if (output.outcome === 'success') successes += 1;
    const requests = recorder?.take(output.episodeId);
    if (options.onlySuccess === true && output.outcome !== 'success') continue;
    demos.push(demoOf(output, env.spec.id, split, slot.key % samples, options.agentName, requests?.seed ?? 0, requests?.availableActions ?? []));
  }
  return { demos, summary, episodes: scored, successes, filtered: scored - demos.length, aborted };
}

function stopReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
}

function demoOf(o: EpisodeOutput, env: string, split: Split, sample: number, agent: string, seed: number, lists: readonly (readonly string[] | undefined)[]): Demo {
  const turns = o.trajectory.map((turn, i) => {
    const listed = lists[i];
    return {
      observation: i === 0 ? o.firstObservation : o.trajectory[i - 1]!.observation,
      ...(listed !== undefined ? { availableActions: [...listed] } : {}),
      action: turn.action,
      reward: turn.reward,
    };
  });
  const last = o.trajectory[o.trajectory.length - 1];
  return {
    format: 'actorgym-demo', version: 1, env, split, taskId: o.taskId, sample, agent, seed, episodeId: o.episodeId,
    outcome: o.outcome as Demo['outcome'], reward: o.reward, turns, finalObservation: last?.observation ?? o.firstObservation,
  };
}
