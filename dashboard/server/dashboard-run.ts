/**
 * One run on the dashboard, whatever its source (a live event stream, a run directory, a remote
 * event server): its episode board, its chart rows, its status line, and the run directory its
 * trajectories are read from. Sources push events and status into it; the hub pulls the
 * changes at its own pace (live-hub.ts).
 */
import { EpisodeBoard, type BoardEvent } from './episode-board.ts';
import { MetricSeries } from './metric-series.ts';
import { RunDirReader } from './run-dir.ts';
import type { BufferInfo, RunInfo, RunKind } from './wire.ts';
import { errorMessage } from '../../envs/error-message.ts';

export class DashboardRun {
  readonly board: EpisodeBoard;
  readonly series: MetricSeries;
  dir: RunDirReader | undefined;
  env: string | undefined;
  private status = '';
  private live: boolean;
  private infoChanged = true;
  private targetSteps: number | undefined;
  private lastStep = 0;
  private lastHorizon: number | undefined;
  private lastXAxis: RunInfo['xAxis'] = 'step';
  private buffer: BufferInfo | undefined;

  constructor(
    readonly id: string,
    readonly label: string,
    readonly kind: RunKind,
    now: () => number,
    /** Told when a background task (opening the run directory) fails; never thrown. */
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.board = new EpisodeBoard(now);
    this.series = new MetricSeries(now);
    this.live = kind !== 'dir';
  }

  /** Folds one event of the run in. Cheap and synchronous: it runs inside the training loop. */
  apply(event: BoardEvent): void {
    this.board.apply(event);
    this.series.apply(event);
    switch (event.type) {
      case 'training.started':
        if (typeof event.env === 'string') this.env = event.env;
        if (typeof event.targetSteps === 'number') this.targetSteps = event.targetSteps;
        if (typeof event.fromStep === 'number') this.lastStep = event.fromStep;
        // A remote run's directory is on its machine: used when this one sees it too (same host, shared disk), silently skipped otherwise.
        if (typeof event.out === 'string' && event.out !== '' && !this.dir) this.attachDir(event.out, num(event.fromStep), this.kind === 'remote');
        this.setStatus(`training${event.algo ? ` ${String(event.algo)}` : ''} from step ${this.lastStep}`);
        break;
      case 'run.started':
        this.env ??= str(event.env);
        if (typeof event.horizon === 'number') this.lastHorizon = event.horizon;
        if (!this.targetSteps) this.setStatus(`running ${str(event.runId) ?? ''}`);
        break;
      case 'learner.stepped':
        this.lastStep = num(event.step);
        this.setStatus(`step ${this.lastStep}${this.targetSteps ? `/${this.targetSteps}` : ''}${this.lastHorizon ? ` · horizon ${this.lastHorizon}` : ''}`);
        break;
      case 'horizon.changed':
        if (typeof event.to === 'number') this.lastHorizon = event.to;
        break;
      case 'buffer.changed':
        this.buffer = bufferInfo(event);
        this.infoChanged = true;
        break;
      case 'training.finished':
        this.setStatus(`training ${str(event.status) ?? 'finished'} after step ${num(event.steps)}`);
        break;
      case 'evaluation.finished': {
        const summary = event.summary as { successRate?: unknown; episodes?: unknown } | undefined;
        if (typeof summary?.successRate === 'number') {
          this.setStatus(`test success ${(100 * summary.successRate).toFixed(1)}% over ${num(summary.episodes)} episodes`);
        }
        break;
      }
      case 'run.finished':
        if (!this.targetSteps) this.setStatus(`finished ${str(event.runId) ?? ''}`);
        break;
    }
  }

  setStatus(status: string, live: boolean = this.live): void {
    if (status === this.status && live === this.live) return;
    this.status = status.trim();
    this.live = live;
    this.infoChanged = true;
  }

  /** The run's trajectories (and, on resume, its earlier metrics) come from this directory. */
  attachDir(dir: string, preloadUpTo = 0, quiet = false): void {
    RunDirReader.open(dir).then(
      async (reader) => {
        this.dir = reader;
        this.infoChanged = true;
        if (preloadUpTo > 0) {
          const earlier = (await reader.newMetrics()).rows.filter((row) => (row.step ?? Infinity) <= preloadUpTo);
          this.series.preload(earlier);
        }
      },
      (error: unknown) => {
        if (!quiet) this.warn(`${this.label}: trajectories unavailable: ${errorMessage(error)}`);
      },
    );
  }

  info(): RunInfo {
    return {
      id: this.id,
      label: this.label,
      kind: this.kind,
      status: this.status,
      live: this.live,
      env: this.env,
      xAxis: this.series.xAxis,
      hasTrajectories: this.dir !== undefined,
      ...(this.dir?.kind === 'evaluation' ? { evaluation: true as const } : {}),
      ...(this.buffer ? { buffer: this.buffer } : {}),
    };
  }

  /** Whether `info()` changed since the previous call (the x axis changes with the chart rows). */
  takeInfoChanged(): boolean {
    const changed = this.infoChanged || this.series.xAxis !== this.lastXAxis;
    this.infoChanged = false;
    this.lastXAxis = this.series.xAxis;
    return changed;
  }
}

/** The buffer panel's numbers from a `buffer.changed` (already checked against its schema when remote). */
function bufferInfo(event: Readonly<Record<string, unknown>>): BufferInfo {
  const histogram = typeof event.stalenessHistogram === 'object' && event.stalenessHistogram !== null ? event.stalenessHistogram as Record<string, unknown> : {};
  return {
    fill: num(event.fill), capacity: num(event.capacity), ready: num(event.ready), trained: num(event.trained),
    droppedStale: num(event.droppedStale), droppedDuplicate: num(event.droppedDuplicate),
    stalenessHistogram: Object.fromEntries(Object.entries(histogram).map(([k, v]) => [k, num(v)])),
  };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
