/**
 * The rollout step of an evaluation: this session's slots through the rollout system, each
 * finished attempt appended to the evaluation directory as it ends (and its screenshots kept),
 * progress reported after every attempt, and a stop on the caller's signal.
 */
import type { RolloutSlot } from '../actors/rollout-system.ts';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import type { RunClock } from '../actors/clock.ts';
import type { EvalDir } from './eval-files.ts';
import type { EvalPlan } from './eval-plan.ts';
import { addCall } from './calls-total.ts';
import { episodeRecord, type EpisodeCalls, type EvalEpisodeRecord } from './eval-record.ts';
import type { RunEvaluationOptions } from './run-eval.ts';
import { scoreOf, tapScores } from './score-tap.ts';
import { tapScreenshots, writeEpisodeScreenshots } from './screenshot-tap.ts';

export interface EvalSessionInput {
  readonly options: RunEvaluationOptions;
  readonly plan: EvalPlan;
  readonly dir: EvalDir;
  readonly clock: RunClock;
  readonly slots: readonly RolloutSlot[];
  /** Records read back from the directory: this session's are appended. */
  readonly records: EvalEpisodeRecord[];
  /** Pairs with a result before this session, and how many of them succeeded. */
  readonly done: number;
  readonly doneSuccesses: number;
}

/** Runs the session; resolves with its wall time in seconds. */
export async function runEvalSession(input: EvalSessionInput): Promise<number> {
  const { options, plan, dir, clock, slots } = input;
  const { env } = options;
  const total = plan.taskIds.length * plan.config.n;
  const categoryOf = env.categoryOf?.bind(env);
  let successes = input.doneSuccesses;
  let finished = input.done;
  let abortedAttempts = 0;
  // Each running attempt's calls, written with its line (at most one entry per running episode, plus
  // the rare call that ends after its episode was cancelled, dropped with the session).
  const tallies = new Map<string, EpisodeCalls>();
  options.watchCalls?.((call) => tallies.set(call.key.episodeId, addCall(tallies.get(call.key.episodeId), call)));
  const system = createRolloutSystem({
    env: tapScores(options.screenshots ? tapScreenshots(env) : env),
    agent: options.agent,
    split: plan.split,
    slots,
    concurrency: options.concurrency ?? 32,
    schedule: `fixed:${plan.config.horizon}`,
    seed: plan.config.seed,
    runId: `eval-${plan.config.seed}`,
    maxRetries: options.maxRetries ?? 2,
    ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
    clock,
    ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
    ...(options.agentTimeoutMs !== undefined ? { agentTimeoutMs: options.agentTimeoutMs } : {}),
    onEpisode: (output, instance) => {
      const record = episodeRecord(output, {
        sample: Math.floor(output.slot / plan.splitTasks.length),
        category: categoryOf?.(output.taskId),
        score: scoreOf(instance),
        ...(options.watchCalls !== undefined ? { llm: tallies.get(output.episodeId) ?? addCallsNone() } : {}),
      });
      tallies.delete(output.episodeId);
      dir.appendEpisode(record);
      if (options.screenshots) writeEpisodeScreenshots(instance, dir.root, output.episodeId);
      input.records.push(record);
      if (record.outcome === 'aborted' && record.abortReason !== 'cancelled') abortedAttempts += 1;
      else finished += 1;
      if (record.outcome === 'success') successes += 1;
      options.onProgress?.({ done: finished, total, successes, abortedAttempts });
    },
  });
  options.onStart?.({ events: system.events, episodes: slots.length, done: input.done, total });
  const stop = () => system.stop('evaluation interrupted');
  options.signal?.addEventListener('abort', stop, { once: true });
  const startedAt = clock.now();
  const runPromise = system.run();
  if (options.signal?.aborted) stop();
  try {
    await runPromise;
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  return (clock.now() - startedAt) / 1000;
}

const addCallsNone = (): EpisodeCalls => ({ calls: 0, failedCalls: 0, retries: 0, promptTokens: 0, completionTokens: 0 });
