/**
 * The evaluation metrics of AgentGym-RL's tables: Avg@n and Pass@k, overall and per task
 * category. Pure functions over per-(task, sample) results.
 *
 * An aborted sample is not a result: infrastructure failed, the agent was not judged. The runner
 * retries it and, if it stays aborted, reports it as missing; it never reaches this file as a
 * failure. A task with fewer than n results (an incomplete evaluation) is scored on the samples
 * it has: its Avg is c/nᵢ, and it counts towards Pass@k only for k ≤ nᵢ.
 */
import { orderCategories } from '../envs/categories.ts';

/**
 * The unbiased pass@k estimator of Chen et al. 2021 (the Codex paper): the chance that at least
 * one of k samples drawn without replacement from n, of which c succeeded, succeeds:
 * 1 − C(n−c, k) / C(n, k). Computed as 1 − ∏_{i=n−c+1}^{n} (1 − k/i), which never forms a
 * binomial coefficient (those overflow for n in the hundreds).
 *
 * @example passAtK(4, 1, 2) // 0.5: one success in four, two draws
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k) && n >= 1 && c >= 0 && c <= n && k >= 1 && k <= n)) {
    throw new RangeError(`passAtK needs integers 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n} c=${c} k=${k}`);
  }
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** One finished (task, sample): success or not, and the env's score when it reports one. */
export interface SampleResult {
  readonly taskId: string;
  readonly category?: string;
  /** 0 ≤ sample < n. */
  readonly sample: number;
  readonly success: boolean;
  /** The env's own score (SciWorld's 0–100), when it reports one. */
  readonly score?: number;
}

export interface Metrics {
  /** Tasks with at least one result. */
  readonly tasks: number;
  /** Results counted (n × tasks when complete). */
  readonly samples: number;
  /** Mean over tasks of the task's success rate over its samples (= Pass@1). */
  readonly avgAtN: number;
  /** Pass@k for k = 1..n, keyed by k; the mean over tasks of `passAtK(nᵢ, cᵢ, k)`. */
  readonly passAtK: Readonly<Record<string, number>>;
  /** Mean score over the results that carry one; absent when none does. */
  readonly meanScore?: number;
}

/** Avg@n and Pass@k over a set of tasks (overall or one category), with the task and sample counts behind them. */
export interface Aggregate extends Metrics {
  /** The same metrics per category, in table order (`orderCategories`); empty without categories. */
  readonly categories: Readonly<Record<string, Metrics>>;
}

interface TaskTally {
  readonly category: string | undefined;
  readonly samples: Set<number>;
  successes: number;
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

function metricsOf(tallies: readonly TaskTally[], results: readonly SampleResult[], n: number): Metrics {
  const passAt: Record<string, number> = {};
  for (let k = 1; k <= n; k++) {
    const eligible = tallies.filter((t) => t.samples.size >= k);
    if (eligible.length > 0) passAt[String(k)] = mean(eligible.map((t) => passAtK(t.samples.size, t.successes, k)));
  }
  const scores = results.flatMap((r) => (r.score === undefined ? [] : [r.score]));
  return {
    tasks: tallies.length,
    samples: results.length,
    avgAtN: mean(tallies.map((t) => t.successes / t.samples.size)),
    passAtK: passAt,
    ...(scores.length > 0 ? { meanScore: mean(scores) } : {}),
  };
}

/**
 * Avg@n and Pass@k (k = 1..n) overall and per category. A (task, sample) given twice, a sample
 * outside 0..n−1 or a task given two categories is an error: counting it would bias the table.
 */
export function aggregate(results: readonly SampleResult[], n: number): Aggregate {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`n must be a positive integer, got ${n}`);
  const tasks = new Map<string, TaskTally>();
  for (const result of results) {
    if (!(Number.isInteger(result.sample) && result.sample >= 0 && result.sample < n)) {
      throw new RangeError(`task ${result.taskId}: sample ${result.sample} is outside 0..${n - 1}`);
    }
    let tally = tasks.get(result.taskId);
    if (!tally) {
      tally = { category: result.category, samples: new Set(), successes: 0 };
      tasks.set(result.taskId, tally);
    }
    if (tally.category !== result.category) throw new Error(`task ${result.taskId} has two categories: ${tally.category} and ${result.category}`);
    if (tally.samples.has(result.sample)) throw new Error(`task ${result.taskId}: sample ${result.sample} is given twice`);
    tally.samples.add(result.sample);
    if (result.success) tally.successes += 1;
  }
  const names = orderCategories(results.flatMap((r) => (r.category === undefined ? [] : [r.category])));
  const categories = Object.fromEntries(
    names.map((name) => [
      name,
      metricsOf([...tasks.values()].filter((t) => t.category === name), results.filter((r) => r.category === name), n),
    ]),
  );
  return { ...metricsOf([...tasks.values()], results, n), categories };
}
