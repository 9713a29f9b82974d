/**
 * The closed-loop horizon rule of `adaptive:` schedules (docs/curriculum.md). The paper calls
 * ScalingInter's increment adaptive but the released code is step-based (reference §5); this rule
 * reads the run instead. After each learner step, over the last `window` steps at the current
 * horizon (a change starts a fresh window: signals from another horizon are not comparable):
 *
 *   1. collapse — success falls by ≥ COLLAPSE_DROP over the window while turns rise by
 *      ≥ TURNS_RISE·horizon or entropy rises by ≥ ENTROPY_RISE (relative): step back by `step`
 *      (not below `min`), and block raising for BACKOFF_WINDOWS windows so it cannot bounce
 *      straight back into what collapsed;
 *   2. progress — success rises by more than FLAT: hold, the horizon is still teaching;
 *   3. binding — the mean truncation share is ≥ `trunc` and success is not falling (≥ −FLAT):
 *      raise by `step` (not above `max`);
 *   4. otherwise hold, and say which condition failed.
 *
 * Trends are least-squares slopes times (window − 1): the fitted change across the window, which
 * is less noisy than last-minus-first on a few dozen episodes per step. Pure: numbers in, numbers out.
 */
import type { AdaptiveSchedule } from './schedule.ts';

/** Success change over a window below which a trend counts as flat. */
export const FLAT = 0.05;
/** Success drop over a window that, with rising turns or entropy, counts as a collapse. */
export const COLLAPSE_DROP = 0.1;
/** Rise of mean turns over a window, as a share of the horizon, that counts as rising. */
export const TURNS_RISE = 0.1;
/** Rise of entropy over a window, relative to its mean, that counts as rising. */
export const ENTROPY_RISE = 0.1;
/** After a step back, raising waits this many windows. */
export const BACKOFF_WINDOWS = 2;

export type HorizonDecision = 'raise' | 'hold' | 'back';

/** One learner step's signals, as the rule keeps them (JSON: it is checkpointed). */
export interface StepSignals {
  readonly step: number;
  readonly successRate: number;
  readonly meanTurns: number;
  /** Episodes truncated by the horizon / episodes that finished (aborted ones excluded). */
  readonly truncationRate: number;
  /** Policy entropy of the update; null when the learner reported none. */
  readonly entropy: number | null;
}

/** The closed loop's memory: part of the curriculum state, so of every checkpoint. */
export interface AdaptiveMemory {
  /** Signals of the last `window` steps at the current horizon, oldest first. */
  readonly history: readonly StepSignals[];
  /** No raise before this completed step (set by a step back). */
  readonly raiseBlockedUntil: number;
}

/** What a decision saw, flat so that it reads well in JSON (a type alias: it must fit a Record). */
export type DecisionSignals = {
  readonly successRate: number | null;
  readonly meanTurns: number | null;
  readonly truncationRate: number | null;
  readonly entropy: number | null;
  /** Steps of history at the current horizon the trends were computed on. */
  readonly windowSteps: number;
  readonly successTrend: number | null;
  readonly turnsTrend: number | null;
  readonly entropyTrend: number | null;
  readonly truncationMean: number | null;
};

export interface AdaptiveVerdict {
  readonly decision: HorizonDecision;
  readonly to: number;
  readonly reason: string;
  readonly signals: DecisionSignals;
  readonly memory: AdaptiveMemory;
}

export const emptyMemory: AdaptiveMemory = { history: [], raiseBlockedUntil: 0 };

/**
 * A step's signals from its metrics line; null when the metrics lack what the rule reads. A step
 * without a gradient update (`updates: 0`, e.g. every group uninformative) reports entropy 0,
 * which measures nothing: it becomes null rather than a fake swing in the entropy trend.
 */
export function stepSignals(step: number, metrics: Readonly<Record<string, number>> | undefined): StepSignals | null {
  const { successRate, meanTurns, truncationRate, entropy, updates } = metrics ?? {};
  if (![successRate, meanTurns, truncationRate].every((v) => typeof v === 'number' && Number.isFinite(v))) return null;
  return {
    step,
    successRate: successRate!,
    meanTurns: meanTurns!,
    truncationRate: truncationRate!,
    entropy: typeof entropy === 'number' && Number.isFinite(entropy) && updates !== 0 ? entropy : null,
  };
}

/** Least-squares slope × (n − 1): the fitted change across the series. */
export function trend(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((a, v) => a + v, 0) / n;
  let num = 0;
  let den = 0;
  values.forEach((v, i) => {
    num += (i - meanX) * (v - meanY);
    den += (i - meanX) ** 2;
  });
  return (num / den) * (n - 1);
}

const mean = (values: readonly number[]): number => values.reduce((a, v) => a + v, 0) / Math.max(1, values.length);
const f2 = (x: number): string => (x >= 0 ? '+' : '') + x.toFixed(2);

function rawSignals(s: StepSignals | null, windowSteps: number): DecisionSignals {
  return {
    successRate: s?.successRate ?? null, meanTurns: s?.meanTurns ?? null, truncationRate: s?.truncationRate ?? null, entropy: s?.entropy ?? null,
    windowSteps, successTrend: null, turnsTrend: null, entropyTrend: null, truncationMean: null,
  };
}

/** The rule: the horizon for the step after `step`, given this step's signals. */
export function decideAdaptive(schedule: AdaptiveSchedule, horizon: number, memory: AdaptiveMemory, step: number, signals: StepSignals | null): AdaptiveVerdict {
  const hold = (reason: string, s: DecisionSignals, m: AdaptiveMemory): AdaptiveVerdict => ({ decision: 'hold', to: horizon, reason, signals: s, memory: m });
  if (signals === null) return hold('no rollout metrics for this step', rawSignals(null, memory.history.length), memory);
  const history = [...memory.history, signals].slice(-schedule.window);
  const kept = { ...memory, history };
  if (history.length < schedule.window) return hold(`gathering signals: ${history.length}/${schedule.window} steps at horizon ${horizon}`, rawSignals(signals, history.length), kept);

  const successTrend = trend(history.map((s) => s.successRate));
  const turnsTrend = trend(history.map((s) => s.meanTurns));
  const entropies = history.map((s) => s.entropy).filter((e): e is number => e !== null);
  // Over the steps that measured it (see stepSignals); two are needed for a trend.
  const entropyTrend = entropies.length >= 2 ? trend(entropies) : null;
  const truncationMean = mean(history.map((s) => s.truncationRate));
  const seen: DecisionSignals = { ...rawSignals(signals, history.length), successTrend, turnsTrend, entropyTrend, truncationMean };
  const over = `over ${history.length} steps`;
  const fresh = (raiseBlockedUntil: number): AdaptiveMemory => ({ history: [], raiseBlockedUntil });

  const turnsRising = turnsTrend >= TURNS_RISE * horizon;
  const entropyRising = entropyTrend !== null && entropyTrend >= ENTROPY_RISE * Math.max(Math.abs(mean(entropies)), 1e-3);
  if (successTrend <= -COLLAPSE_DROP && (turnsRising || entropyRising)) {
    const why = `collapse: success ${f2(successTrend)} ${over} with ${turnsRising ? `turns ${f2(turnsTrend)}` : `entropy ${f2(entropyTrend ?? 0)}`}`;
    if (horizon <= schedule.min) return hold(`${why}, but already at the minimum horizon ${schedule.min}`, seen, kept);
    const to = Math.max(schedule.min, horizon - schedule.step);
    const until = step + BACKOFF_WINDOWS * schedule.window;
    return { decision: 'back', to, reason: `${why}: step back to ${to}, no raise before step ${until + 1}`, signals: seen, memory: fresh(until) };
  }
  if (successTrend > FLAT) return hold(`progress: success ${f2(successTrend)} ${over}`, seen, kept);
  if (truncationMean >= schedule.trunc && successTrend >= -FLAT) {
    const why = `truncation ${truncationMean.toFixed(2)} ≥ ${schedule.trunc} and success flat (${f2(successTrend)} ${over})`;
    if (horizon >= schedule.max) return hold(`${why}, but already at the maximum horizon ${schedule.max}`, seen, kept);
    if (step < memory.raiseBlockedUntil) return hold(`${why}, but raising is blocked until step ${memory.raiseBlockedUntil + 1} after a step back`, seen, kept);
    const to = Math.min(schedule.max, horizon + schedule.step);
    return { decision: 'raise', to, reason: `${why}: raise to ${to}`, signals: seen, memory: fresh(memory.raiseBlockedUntil) };
  }
  if (truncationMean < schedule.trunc) return hold(`horizon not binding: truncation ${truncationMean.toFixed(2)} < ${schedule.trunc}`, seen, kept);
  return hold(`success falling (${f2(successTrend)} ${over}), not a collapse: keep horizon ${horizon}`, seen, kept);
}
