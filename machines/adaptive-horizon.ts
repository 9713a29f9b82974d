/**
 * The closed-loop horizon rule of `adaptive:` schedules (docs/curriculum.md). The paper calls
 * ScalingInter's increment adaptive but the released code is step-based (reference §5); this rule
 * reads the run instead. After each learner step, over the last `window` steps at the current
 * horizon (a change starts a fresh window: signals from another horizon are not comparable):
 *
 *   1. collapse — success falls by more than sampling noise explains, i.e. by
 *      ≥ max(COLLAPSE_DROP, COLLAPSE_Z · SE of the success trend), while the turns of successful
 *      episodes rise by ≥ TURNS_RISE·horizon or entropy rises by ≥ ENTROPY_RISE (relative): step
 *      back by `step` (not below `min`), and block raising for BACKOFF_WINDOWS windows so it
 *      cannot bounce straight back into what collapsed;
 *   2. progress — success rises by more than FLAT: hold, the horizon is still teaching;
 *   3. binding — the mean truncation share is ≥ `trunc` and success is not falling (≥ −FLAT):
 *      raise by `step` (not above `max`);
 *   4. otherwise hold, and say which condition failed.
 *
 * Trends are least-squares slopes times (window − 1): the fitted change across the window, which
 * is less noisy than last-minus-first on a few dozen episodes per step. Pure: numbers in, numbers out.
 *
 * The noise (issue 25): a step's success is a binomial proportion, and its n is the number of
 * distinct tasks (GRPO groups), not of episodes: the G rollouts of one task share its difficulty,
 * and p(1 − p)/tasks bounds the variance of the step's success under any task mix. Turns are read
 * on successful episodes only: a failure runs to the horizon, so the mean over all episodes rises
 * whenever success falls and is no second piece of evidence. Signals without these fields (a
 * checkpoint from before issue 25, a caller that does not report them) get the earlier rule.
 */
import type { AdaptiveSchedule } from './schedule.ts';

/** Success change over a window below which a trend counts as flat. */
export const FLAT = 0.05;
/** Smallest success drop over a window that, with rising turns or entropy, counts as a collapse. */
export const COLLAPSE_DROP = 0.1;
/** A collapse's success drop must also be this many standard errors of the success trend. */
export const COLLAPSE_Z = 2.5;
/** Rise of mean turns over a window, as a share of the horizon, that counts as rising. */
export const TURNS_RISE = 0.1;
/** Rise of entropy over a window, relative to its mean, that counts as rising. */
export const ENTROPY_RISE = 0.1;
/** After a step back, raising waits this many windows. */
export const BACKOFF_WINDOWS = 2;

/** What the adaptive rule decides after a learner step: raise the horizon, hold it, or back off. */
export type HorizonDecision = 'raise' | 'hold' | 'back';

/**
 * One learner step's signals, as the rule keeps them (JSON: it is checkpointed). The last three
 * are absent in checkpoints written before issue 25; absent and null both mean unknown.
 */
export interface StepSignals {
  readonly step: number;
  readonly successRate: number;
  /** Mean turns over all finished episodes. */
  readonly meanTurns: number;
  /** Episodes truncated by the horizon / episodes that finished (aborted ones excluded). */
  readonly truncationRate: number;
  /** Policy entropy of the update; null when the learner reported none. */
  readonly entropy: number | null;
  /** Mean turns of the successful episodes; null when none succeeded or it was not reported. */
  readonly successTurns?: number | null;
  /** Episodes that finished (not aborted). */
  readonly finished?: number | null;
  /** Distinct task groups among them (GRPO groups; the learner's `groups`). */
  readonly groups?: number | null;
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
  readonly successTurns: number | null;
  readonly truncationRate: number | null;
  readonly entropy: number | null;
  /** Steps of history at the current horizon the trends were computed on. */
  readonly windowSteps: number;
  readonly successTrend: number | null;
  /** Standard error of `successTrend` from sampling noise alone; null when episode counts are unknown. */
  readonly successTrendSE: number | null;
  /** The success drop the collapse test required: max(COLLAPSE_DROP, COLLAPSE_Z · successTrendSE). */
  readonly collapseDrop: number | null;
  /** Trend of mean turns over all episodes. */
  readonly turnsTrend: number | null;
  /** Trend of mean turns of successful episodes (what the collapse test reads when known). */
  readonly successTurnsTrend: number | null;
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

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const count = (v: unknown): number | null => (finite(v) && v >= 1 ? Math.round(v) : null);

/**
 * A step's signals from its metrics line; null when the metrics lack what the rule reads. A step
 * without a gradient update (`updates: 0`, e.g. every group uninformative) reports entropy 0,
 * which measures nothing: it becomes null rather than a fake swing in the entropy trend. Finished
 * episodes are `episodes − aborted`; `groups` and `successTurns` are null when not reported.
 */
export function stepSignals(step: number, metrics: Readonly<Record<string, number>> | undefined): StepSignals | null {
  const { successRate, meanTurns, truncationRate, entropy, updates, successTurns, episodes, aborted, groups } = metrics ?? {};
  if (!(finite(successRate) && finite(meanTurns) && finite(truncationRate))) return null;
  return {
    step,
    successRate,
    meanTurns,
    truncationRate,
    entropy: finite(entropy) && updates !== 0 ? entropy : null,
    successTurns: finite(successTurns) ? successTurns : null,
    finished: finite(episodes) ? count(episodes - (finite(aborted) ? aborted : 0)) : null,
    groups: count(groups),
  };
}

/** Least-squares slope × (n − 1): the fitted change across the series. */
export function trend(values: readonly number[]): number {
  return trendAt(values.map((y, x) => ({ x, y })), values.length);
}

/** Least-squares slope × (span − 1) over points at window positions x (some may be missing). */
function trendAt(points: readonly { x: number; y: number }[], span: number): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((a, p) => a + p.x, 0) / n;
  const meanY = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const { x, y } of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return (num / den) * (span - 1);
}

/** The trend of the steps that measured a signal, at their positions; null with fewer than two. */
function partialTrend(values: readonly (number | null | undefined)[]): number | null {
  const points = values.flatMap((y, x) => (finite(y) ? [{ x, y }] : []));
  return points.length >= 2 ? trendAt(points, values.length) : null;
}

/**
 * Standard error of the success trend from sampling noise alone: each step's success is binomial
 * with the window's pooled rate p and n = its task groups (or, without them, its finished
 * episodes); the trend is a linear combination of the steps, so its variance is
 * ((W − 1) / Σc²)² · Σ c² p(1 − p)/n with c the centred positions. A step whose n is unknown (a
 * checkpoint from before issue 25) counts with the smallest known n; null when none is known.
 */
export function successTrendSE(history: readonly StepSignals[]): number | null {
  const ns = history.map((s) => s.groups ?? s.finished ?? null);
  const known = ns.filter((n): n is number => n !== null);
  if (known.length === 0 || history.length < 2) return null;
  const fallback = Math.min(...known);
  const n = ns.map((v) => v ?? fallback);
  const total = n.reduce((a, v) => a + v, 0);
  const p = history.reduce((a, s, i) => a + s.successRate * n[i]!, 0) / total;
  const w = history.length;
  const meanX = (w - 1) / 2;
  let sumC2 = 0;
  let variance = 0;
  history.forEach((_, i) => {
    const c2 = (i - meanX) ** 2;
    sumC2 += c2;
    variance += (c2 * p * (1 - p)) / n[i]!;
  });
  return ((w - 1) * Math.sqrt(variance)) / sumC2;
}

const mean = (values: readonly number[]): number => values.reduce((a, v) => a + v, 0) / Math.max(1, values.length);
const f2 = (x: number): string => (x >= 0 ? '+' : '') + x.toFixed(2);

/** A step's own signals with no trends: before the window is full, and for open-loop schedules. */
export function rawSignals(s: StepSignals | null, windowSteps: number): DecisionSignals {
  return {
    successRate: s?.successRate ?? null, meanTurns: s?.meanTurns ?? null, successTurns: s?.successTurns ?? null,
    truncationRate: s?.truncationRate ?? null, entropy: s?.entropy ?? null, windowSteps,
    successTrend: null, successTrendSE: null, collapseDrop: null, turnsTrend: null, successTurnsTrend: null, entropyTrend: null, truncationMean: null,
  };
}

/**
 * Turns on successful episodes when every step that had a success reported their turns (steps
 * without a success measure nothing and are skipped); otherwise, for signals from before issue 25,
 * the mean over all episodes as the earlier rule read it.
 */
function turnsEvidence(history: readonly StepSignals[], turnsTrend: number): { trend: number | null; label: string } {
  const onSuccesses = history.every((s) => s.successRate === 0 || finite(s.successTurns));
  if (!onSuccesses) return { trend: turnsTrend, label: 'turns' };
  return { trend: partialTrend(history.map((s) => (s.successRate > 0 ? s.successTurns : null))), label: 'turns on successes' };
}

/** The rule: the horizon for the step after `step`, given this step's signals. */
export function decideAdaptive(schedule: AdaptiveSchedule, horizon: number, memory: AdaptiveMemory, step: number, signals: StepSignals | null): AdaptiveVerdict {
  const hold = (reason: string, s: DecisionSignals, m: AdaptiveMemory): AdaptiveVerdict => ({ decision: 'hold', to: horizon, reason, signals: s, memory: m });
  if (signals === null) return hold('no rollout metrics for this step', rawSignals(null, memory.history.length), memory);
  const history = [...memory.history, signals].slice(-schedule.window);
  const kept = { ...memory, history };
  if (history.length < schedule.window) return hold(`gathering signals: ${history.length}/${schedule.window} steps at horizon ${horizon}`, rawSignals(signals, history.length), kept);

  const successTrend = trend(history.map((s) => s.successRate));
  const se = successTrendSE(history);
  const collapseDrop = Math.max(COLLAPSE_DROP, se === null ? 0 : COLLAPSE_Z * se);
  const turnsTrend = trend(history.map((s) => s.meanTurns));
  const turns = turnsEvidence(history, turnsTrend);
  const successTurnsTrend = turns.label === 'turns' ? null : turns.trend;
  // Over the steps that measured it (see stepSignals); two are needed for a trend.
  const entropies = history.map((s) => s.entropy).filter((e): e is number => e !== null);
  const entropyTrend = partialTrend(history.map((s) => s.entropy));
  const truncationMean = mean(history.map((s) => s.truncationRate));
  const seen: DecisionSignals = { ...rawSignals(signals, history.length), successTrend, successTrendSE: se, collapseDrop, turnsTrend, successTurnsTrend, entropyTrend, truncationMean };
  const over = `over ${history.length} steps`;
  const fresh = (raiseBlockedUntil: number): AdaptiveMemory => ({ history: [], raiseBlockedUntil });
  // The bar a drop had to clear, in the reasons: "beyond -0.28 = 2.5 SE" (or the fixed bar without counts).
  const bar = se === null ? `no episode counts, fixed bar ${f2(-COLLAPSE_DROP)}` : `bar ${f2(-collapseDrop)} = max(${COLLAPSE_DROP}, ${COLLAPSE_Z} SE ${se.toFixed(2)})`;

  const turnsRising = turns.trend !== null && turns.trend >= TURNS_RISE * horizon;
  const entropyRising = entropyTrend !== null && entropyTrend >= ENTROPY_RISE * Math.max(Math.abs(mean(entropies)), 1e-3);
  if (successTrend <= -collapseDrop && (turnsRising || entropyRising)) {
    const why = `collapse: success ${f2(successTrend)} ${over} (${bar}) with ${turnsRising ? `${turns.label} ${f2(turns.trend ?? 0)}` : `entropy ${f2(entropyTrend ?? 0)}`}`;
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
  const within = successTrend > -collapseDrop ? `within noise (${bar})` : `without rising ${turns.label} or entropy`;
  return hold(`success falling (${f2(successTrend)} ${over}), not a collapse: ${within}, keep horizon ${horizon}`, seen, kept);
}
