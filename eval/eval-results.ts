/**
 * `DIR/results.json` (what `eval --json` prints): Avg@n and Pass@k overall and per category, the
 * outcome counts, what is missing, the LLM tokens and the wall time, built from the episode
 * records of every session.
 */
import type { Split } from '../envs/contract.ts';
import type { LlmUsage } from '../policy/llm/chat-types.ts';
import type { OutcomeCounts } from '../streams/events.ts';
import type { EvalConfig } from './eval-config.ts';
import { EvalError } from './eval-error.ts';
import { sampleResult, type EvalEpisodeRecord } from './eval-record.ts';
import { aggregate, type Metrics } from './pass-at-k.ts';

/** An evaluation's results (results.json): Avg@n and Pass@k overall and per task category, outcomes and usage. */
export interface EvalResults {
  readonly env: string;
  readonly split: Split;
  readonly agent: string;
  /** Samples per task. */
  readonly n: number;
  /** Tasks evaluated (the first `tasks` of the split). */
  readonly tasks: number;
  /** Every (task, sample) has a result (`missing` is 0). */
  readonly complete: boolean;
  /** Mean success over the n samples of every task. */
  readonly avgAtN: number;
  /** Unbiased Pass@k for k = 1..n, keyed by k. */
  readonly passAtK: Readonly<Record<string, number>>;
  /** The same per task category, in the order of the paper's tables. */
  readonly categories: Readonly<Record<string, Metrics>>;
  /** Mean of the env's own score (SciWorld 0–100) when it reports one. */
  readonly meanScore?: number;
  /**
   * Per (task, sample): success, failure and truncated are results; `aborted` counts the pairs
   * whose every attempt was aborted by infrastructure (they are missing, not failures).
   */
  readonly outcomes: OutcomeCounts;
  /** (task, sample) pairs without a result: aborted through their retries, or not run yet. */
  readonly missing: number;
  /** An LLM agent's calls and tokens over every session; null for agents without one. */
  readonly tokens: LlmUsage | null;
  /** Wall time of the sessions that ran (a killed session's time is lost). */
  readonly wallSeconds: number;
  readonly seed: number;
  readonly horizon: number;
  /** The LLM judge of free-text answers, when the env had one. */
  readonly judge?: string;
}

export interface ResultsInput {
  readonly config: EvalConfig;
  /** The evaluated task ids, in split order. */
  readonly taskIds: readonly string[];
  readonly records: readonly EvalEpisodeRecord[];
  readonly tokens: LlmUsage | null;
  readonly wallSeconds: number;
}

/** A (task, sample) pair as a map key. */
export const pairKey = (taskId: string, sample: number) => `${sample}\u0000${taskId}`;

/** The one result of each (task, sample) that has one, in split order; a second one is an error. */
export function resultsByPair(records: readonly EvalEpisodeRecord[], taskIds: readonly string[], n: number): Map<string, EvalEpisodeRecord> {
  const known = new Set(taskIds);
  const done = new Map<string, EvalEpisodeRecord>();
  for (const record of records) {
    if (!known.has(record.taskId) || !(Number.isInteger(record.sample) && record.sample >= 0 && record.sample < n)) {
      throw new EvalError('EVAL_CORRUPT', `episode ${record.episodeId} (task ${record.taskId}, sample ${record.sample}) is not part of this evaluation`);
    }
    if (record.outcome === 'aborted') continue;
    const key = pairKey(record.taskId, record.sample);
    const first = done.get(key);
    if (first) {
      throw new EvalError('EVAL_CORRUPT', `task ${record.taskId} sample ${record.sample} has two results (${first.episodeId}, ${record.episodeId}); did two processes share the directory?`);
    }
    done.set(key, record);
  }
  return done;
}

export function buildResults(input: ResultsInput): EvalResults {
  const { config, taskIds, records } = input;
  const done = resultsByPair(records, taskIds, config.n);
  const ordered = taskIds.flatMap((taskId) =>
    Array.from({ length: config.n }, (_, sample) => done.get(pairKey(taskId, sample))).filter((r) => r !== undefined),
  );
  const attempted = new Set(records.map((r) => pairKey(r.taskId, r.sample)));
  const outcomes: OutcomeCounts = { success: 0, failure: 0, truncated: 0, aborted: 0 };
  for (const record of ordered) outcomes[record.outcome] += 1;
  for (const key of attempted) if (!done.has(key)) outcomes.aborted += 1;
  const metrics = aggregate(ordered.map(sampleResult), config.n);
  const missing = taskIds.length * config.n - ordered.length;
  return {
    env: config.env,
    split: config.split,
    agent: config.agent,
    n: config.n,
    tasks: taskIds.length,
    complete: missing === 0,
    avgAtN: metrics.avgAtN,
    passAtK: metrics.passAtK,
    categories: metrics.categories,
    ...(metrics.meanScore !== undefined ? { meanScore: metrics.meanScore } : {}),
    outcomes,
    missing,
    tokens: input.tokens,
    wallSeconds: input.wallSeconds,
    seed: config.seed,
    horizon: config.horizon,
    ...(config.judge !== undefined ? { judge: config.judge } : {}),
  };
}
