/**
 * The evaluation harness: n samples of each task of a split, scored as Avg@n and Pass@k overall
 * and per task category (AgentGym-RL's tables), written to an evaluation directory
 * (eval-files.ts) as it goes, and resumable.
 *
 * Each (task, sample) is one slot of the rollout system with key `sample × |split| + task index`,
 * so its seed (derived from the run seed and the key) and its episode id are the same in every
 * session, whatever ran before: a resumed evaluation runs only the pairs without a result and
 * gives the results one uninterrupted run would. (With n = 1 the keys are the split indices, as
 * in `rollout`.) An aborted attempt is retried by the run (`maxRetries`); a pair that stays
 * aborted is missing, never a failure, and the next session runs it again.
 *
 * @example
 * const { results } = await runEvaluation({ env: getEnv('babyai'), agent: 'random', samples: 4, out: 'evals/babyai-random' });
 * console.log(results.avgAtN, results.passAtK['4'], results.categories);
 */
import type { Observable } from 'rxjs';
import type { EnvDefinition, Split } from '../envs/contract.ts';
import type { LlmUsage } from '../policy/llm/chat-types.ts';
import type { RunEvent } from '../streams/events.ts';
import { systemClock, type RunClock } from '../actors/clock.ts';
import { createRolloutSystem, type AgentSpec, type RolloutSlot } from '../actors/rollout-system.ts';
import { configDifferences, type EvalConfig } from './eval-config.ts';
import { EvalError } from './eval-error.ts';
import { EvalDir } from './eval-files.ts';
import { episodeRecord } from './eval-record.ts';
import { buildResults, pairKey, resultsByPair, type EvalResults } from './eval-results.ts';
import { mergeUsage } from './merge-usage.ts';
import { resultsMarkdown } from './results-md.ts';
import { scoreOf, tapScores } from './score-tap.ts';
import { tapScreenshots, writeEpisodeScreenshots } from './screenshot-tap.ts';

export interface RunEvaluationOptions {
  readonly env: EnvDefinition;
  readonly agent: AgentSpec;
  /** The agent as results name it; default the policy's name (`random`, `oracle`, `checkpoint@60`). */
  readonly agentName?: string;
  /** Default `test`. */
  readonly split?: Split;
  /** n: samples of each task. */
  readonly samples: number;
  /** Evaluate the first `tasks` tasks of the split; default all of them. */
  readonly tasks?: number;
  /** The evaluation directory; created, or resumed when it holds this evaluation. */
  readonly out: string;
  /** Run seed; every (task, sample) derives its own from it. Default 0. */
  readonly seed?: number;
  /** Episodes running at once. Default 32. */
  readonly concurrency?: number;
  /** Max agent turns per episode; default the env's. */
  readonly horizon?: number;
  /** Deadline of one agent decision. Default 120 s (the rollout system's). */
  readonly agentTimeoutMs?: number;
  /** Deadline of one env call. Default 30 s. */
  readonly envTimeoutMs?: number;
  /** Retries of an aborted (task, sample) within this session. Default 2. */
  readonly maxRetries?: number;
  /** Further retries of a pair aborted because its env server was lost (rollout system's `maxLostRetries`). Default 10. */
  readonly maxLostRetries?: number;
  /** Run at most this many of the missing pairs in this session (the rest stay missing). */
  readonly maxEpisodes?: number;
  /** Aborting stops the session: running episodes end as cancelled (missing), results are written. */
  readonly signal?: AbortSignal;
  /** Called once the session's episodes are about to start, with the run's event stream. */
  readonly onStart?: (start: EvalStart) => void;
  /** Called after every finished attempt. */
  readonly onProgress?: (progress: EvalProgress) => void;
  /** An LLM agent's usage in this process (added to earlier sessions' in results.tokens). */
  readonly usage?: () => LlmUsage | undefined;
  /**
   * Keep each turn's page picture (`info.screenshot` of an env that sends one, such as
   * `createWebDefinition({ screenshots: true })`) as `DIR/screenshots/<episodeId>/<turn>.jpg`
   * (screenshot-tap.ts). Default false.
   */
  readonly screenshots?: boolean;
  readonly clock?: RunClock;
}

export interface EvalStart {
  readonly events: Observable<RunEvent>;
  /** Pairs this session runs. */
  readonly episodes: number;
  /** Pairs that already had a result. */
  readonly done: number;
  readonly total: number;
}

export interface EvalProgress {
  /** Pairs with a result, this session's and earlier ones. */
  readonly done: number;
  readonly total: number;
  readonly successes: number;
  /** Aborted attempts this session (retried, or left missing). */
  readonly abortedAttempts: number;
}

export interface EvalRun {
  readonly results: EvalResults;
  /** The evaluation directory, absolute. */
  readonly dir: string;
  /** Pairs this session ran. */
  readonly ran: number;
  /** Pairs that had a result before this session. */
  readonly resumedFrom: number;
  /** Everything was already done: nothing ran, and `results` are the stored ones. */
  readonly alreadyComplete: boolean;
  /** Bytes of a cut last line (from a killed session) removed from episodes.jsonl. */
  readonly cutBytes: number;
}

function positive(name: string, value: number): void {
  if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

export async function runEvaluation(options: RunEvaluationOptions): Promise<EvalRun> {
  const { env, samples: n } = options;
  const split = options.split ?? 'test';
  const splitTasks = env.tasks(split);
  positive('samples', n);
  if (options.tasks !== undefined) positive('tasks', options.tasks);
  if (options.maxEpisodes !== undefined) positive('maxEpisodes', options.maxEpisodes);
  const taskIds = splitTasks.slice(0, options.tasks ?? splitTasks.length);
  if (taskIds.length === 0) throw new Error(`env "${env.spec.id}" has no ${split} tasks`);
  const config: EvalConfig = {
    env: env.spec.id,
    split,
    agent: options.agentName ?? (typeof options.agent === 'string' ? options.agent : options.agent.name),
    n,
    tasks: taskIds.length,
    seed: options.seed ?? 0,
    horizon: options.horizon ?? env.spec.defaultHorizon,
  };

  const dir = new EvalDir(options.out);
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

  const { records, cutBytes } = dir.readEpisodes();
  const previous = dir.readResults() as Partial<EvalResults> | undefined;
  const total = taskIds.length * n;
  const done = resultsByPair(records, taskIds, n);
  const resumedFrom = done.size;
  const earlierSeconds = typeof previous?.wallSeconds === 'number' ? previous.wallSeconds : 0;
  const earlierTokens = previous?.tokens ?? null;
  const finish = (wallSeconds: number, tokens: LlmUsage | null, ran: number): EvalRun => {
    const results = buildResults({ config, taskIds, records, tokens, wallSeconds });
    dir.writeResults(results, resultsMarkdown(results));
    return { results, dir: dir.root, ran, resumedFrom, alreadyComplete: ran === 0 && results.complete, cutBytes };
  };

  if (done.size === total) {
    if (previous?.complete === true) return { results: previous as EvalResults, dir: dir.root, ran: 0, resumedFrom, alreadyComplete: true, cutBytes };
    return finish(earlierSeconds, earlierTokens, 0); // killed between its last episode and its results
  }

  // Sample-major, so an interrupted evaluation has whole passes over the tasks first.
  const slots: RolloutSlot[] = [];
  for (let sample = 0; sample < n; sample++) {
    taskIds.forEach((taskId, index) => {
      if (!done.has(pairKey(taskId, sample))) slots.push({ taskId, key: sample * splitTasks.length + index });
    });
  }
  const toRun = slots.slice(0, options.maxEpisodes ?? slots.length);
  const categoryOf = env.categoryOf?.bind(env);
  const clock = options.clock ?? systemClock;
  let successes = [...done.values()].filter((r) => r.outcome === 'success').length;
  let finished = done.size;
  let abortedAttempts = 0;
  const system = createRolloutSystem({
    env: tapScores(options.screenshots ? tapScreenshots(env) : env),
    agent: options.agent,
    split,
    slots: toRun,
    concurrency: options.concurrency ?? 32,
    schedule: `fixed:${config.horizon}`,
    seed: config.seed,
    runId: `eval-${config.seed}`,
    maxRetries: options.maxRetries ?? 2,
    ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
    clock,
    ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
    ...(options.agentTimeoutMs !== undefined ? { agentTimeoutMs: options.agentTimeoutMs } : {}),
    onEpisode: (output, instance) => {
      const record = episodeRecord(output, {
        sample: Math.floor(output.slot / splitTasks.length),
        category: categoryOf?.(output.taskId),
        score: scoreOf(instance),
      });
      dir.appendEpisode(record);
      if (options.screenshots) writeEpisodeScreenshots(instance, dir.root, output.episodeId);
      records.push(record);
      if (record.outcome === 'aborted') abortedAttempts += 1;
      else finished += 1;
      if (record.outcome === 'success') successes += 1;
      options.onProgress?.({ done: finished, total, successes, abortedAttempts });
    },
  });
  options.onStart?.({ events: system.events, episodes: toRun.length, done: done.size, total });
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
  const seconds = (clock.now() - startedAt) / 1000;
  return finish(earlierSeconds + seconds, mergeUsage(earlierTokens, options.usage?.() ?? null), toRun.length);
}
