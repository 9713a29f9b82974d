/**
 * The chart rows of one run. A training run's rows are its metrics.jsonl lines (`learner.stepped`
 * events, or the file). A rollout-only run has no learner, so its rows are windows of finished
 * episodes (success rate, reward, turns, env steps/s over each window), which gives its charts a
 * curve too. Once a learner step arrives, window rows are dropped for good.
 *
 * Bounded: past MAX_METRIC_ROWS rows every second row is dropped (lossy on purpose: the curve
 * keeps its shape and a week-long run does not exhaust memory or the page).
 */
import type { BoardEvent } from './episode-board.ts';
import type { MetricRow } from './wire.ts';

export const MAX_METRIC_ROWS = 20_000;
const MIN_WINDOW = 8;

export interface PendingRows {
  readonly replace: boolean;
  readonly rows: readonly MetricRow[];
}

interface Window {
  episodes: number;
  scored: number;
  successes: number;
  reward: number;
  turns: number;
  aborted: number;
  steps: number;
  startedAt: number;
}

export class MetricSeries {
  private rows: MetricRow[] = [];
  private sent = 0;
  private replace = false;
  private learner = false;
  private windowSize = MIN_WINDOW;
  private window: Window | undefined;
  private horizon = 0;

  constructor(private readonly now: () => number) {}

  get xAxis(): 'step' | 'window' {
    return this.learner || this.rows.length === 0 ? 'step' : 'window';
  }

  all(): readonly MetricRow[] {
    return this.rows;
  }

  /** Folds one event in; returns whether rows were added. */
  apply(event: BoardEvent): boolean {
    switch (event.type) {
      case 'training.started':
        this.useLearner();
        return false;
      case 'learner.stepped': {
        this.useLearner();
        const metrics = event.metrics;
        if (typeof metrics !== 'object' || metrics === null) return false;
        return this.push([numeric(metrics as Record<string, unknown>)]);
      }
      case 'run.started':
        if (typeof event.horizon === 'number') this.horizon = event.horizon;
        if (typeof event.concurrency === 'number' && typeof event.episodes === 'number') {
          this.windowSize = Math.max(MIN_WINDOW, Math.min(event.concurrency, event.episodes));
        }
        return false;
      case 'horizon.changed':
        if (typeof event.to === 'number') this.horizon = event.to;
        return false;
      case 'env.stepped':
        if (!this.learner) this.open().steps++;
        return false;
      case 'episode.finished':
        return this.learner ? false : this.countEpisode(event);
      case 'run.finished':
        return this.learner ? false : this.closeWindow();
      default:
        return false;
    }
  }

  /** Rows read from a file (metrics.jsonl), appended as learner steps. */
  load(rows: readonly MetricRow[]): void {
    if (rows.length === 0) return;
    this.useLearner();
    this.push(rows);
  }

  /** All rows anew (a run directory's metrics.jsonl was rewritten). */
  replaceAll(rows: readonly MetricRow[]): void {
    this.useLearner();
    this.rows = [];
    this.push(rows);
    this.sent = 0;
    this.replace = true;
  }

  /** Earlier learner steps (a resumed run's metrics.jsonl), put before the rows already here. */
  preload(rows: readonly MetricRow[]): void {
    if (rows.length === 0) return;
    this.useLearner();
    const later = this.rows;
    this.rows = [];
    this.push([...rows, ...later]);
    this.sent = 0;
    this.replace = true;
  }

  /** Rows added since the previous call (all of them, with `replace`, after a reset). */
  takePending(): PendingRows | undefined {
    if (!this.replace && this.sent === this.rows.length) return undefined;
    const pending = { replace: this.replace, rows: this.replace ? this.rows.slice() : this.rows.slice(this.sent) };
    this.sent = this.rows.length;
    this.replace = false;
    return pending;
  }

  private useLearner(): void {
    if (this.learner) return;
    this.learner = true;
    this.window = undefined;
    if (this.rows.length > 0) {
      this.rows = [];
      this.sent = 0;
      this.replace = true;
    }
  }

  private push(rows: readonly MetricRow[]): boolean {
    for (const row of rows) this.rows.push(row);
    while (this.rows.length > MAX_METRIC_ROWS) {
      this.rows = this.rows.filter((_, i) => i % 2 === 1);
      this.sent = 0;
      this.replace = true;
    }
    return rows.length > 0;
  }

  private countEpisode(event: BoardEvent): boolean {
    const w = this.open();
    w.episodes++;
    if (event.outcome === 'aborted') w.aborted++;
    else {
      w.scored++;
      if (event.outcome === 'success') w.successes++;
      if (typeof event.reward === 'number') w.reward += event.reward;
      if (typeof event.turns === 'number') w.turns += event.turns;
    }
    return w.episodes >= this.windowSize ? this.closeWindow() : false;
  }

  private open(): Window {
    return (this.window ??= { episodes: 0, scored: 0, successes: 0, reward: 0, turns: 0, aborted: 0, steps: 0, startedAt: this.now() });
  }

  private closeWindow(): boolean {
    const w = this.window;
    if (!w || w.episodes === 0) return false;
    this.window = undefined;
    const seconds = Math.max(1e-3, (this.now() - w.startedAt) / 1000);
    return this.push([{
      step: this.rows.length + 1,
      horizon: this.horizon,
      successRate: w.scored > 0 ? w.successes / w.scored : 0,
      meanReward: w.scored > 0 ? w.reward / w.scored : 0,
      meanTurns: w.scored > 0 ? w.turns / w.scored : 0,
      episodes: w.episodes,
      aborted: w.aborted,
      stepsPerSec: w.steps / seconds,
    }]);
  }
}

/** Only finite numbers: a metrics line from another version may carry strings or nulls. */
export function numeric(source: Readonly<Record<string, unknown>>): MetricRow {
  const row: Record<string, number> = {};
  for (const [key, value] of Object.entries(source)) if (typeof value === 'number' && Number.isFinite(value)) row[key] = value;
  return row;
}
