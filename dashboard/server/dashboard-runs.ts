/**
 * The dashboard's runs, from any mix of sources: a live event stream in this process, a run
 * directory (followed while its metrics.jsonl grows) or a remote event server. Each source's
 * subscription, timer or socket is released by `close()`.
 */
import path from 'node:path';
import type { Observable } from 'rxjs';
import { DashboardRun } from './dashboard-run.ts';
import type { BoardEvent } from './episode-board.ts';
import { connectRemoteSource, type RemoteSource } from './remote-source.ts';
import { RunDirReader } from './run-dir.ts';
import { errorMessage } from '../../envs/error-message.ts';

export interface DashboardRunsOptions {
  /** Milliseconds, for run timings. */
  readonly now: () => number;
  /** Background problems (a dropped connection, an unreadable directory), for the terminal. */
  readonly warn: (message: string) => void;
  /** How often a run directory's metrics.jsonl is checked for new lines (ms). */
  readonly metricsPollMs: number;
}

export interface LiveRunOptions {
  readonly label?: string;
  /** The run directory, for trajectories; a training run's `training.started` also names it. */
  readonly dir?: string;
}

export interface RemoteRunOptions {
  readonly label?: string;
  readonly token?: string;
  readonly reconnectMs?: number;
}

export class DashboardRuns {
  readonly #runs: DashboardRun[] = [];
  readonly #cleanups: (() => void)[] = [];
  #nextId = 1;

  constructor(private readonly options: DashboardRunsOptions) {}

  /** Every run, in the order added (the page's and the API's list). */
  readonly list = (): readonly DashboardRun[] => this.#runs;

  /** Shows a live event stream; the run stops being live when the stream completes. */
  addLive(events: Observable<{ readonly type: string }>, runOptions: LiveRunOptions = {}): DashboardRun {
    const run = this.newRun(runOptions.label ?? 'live', 'live');
    run.setStatus('waiting for events', true);
    if (runOptions.dir !== undefined) run.attachDir(runOptions.dir);
    const subscription = events.subscribe({
      // Events are read field by field with type checks (episode-board.ts), so any event object is safe here.
      next: (event) => run.apply(event as BoardEvent),
      complete: () => {
        const status = run.info().status;
        run.setStatus(status === 'waiting for events' ? 'ended' : status, false);
      },
      error: (error: unknown) => run.setStatus(`failed: ${errorMessage(error)}`, false),
    });
    this.#cleanups.push(() => subscription.unsubscribe());
    return run;
  }

  /** Shows a run directory (charts, trajectories); follows metrics.jsonl while it grows. */
  async addRunDir(dir: string, runOptions: { label?: string } = {}): Promise<DashboardRun> {
    const reader = await RunDirReader.open(dir);
    const run = this.newRun(runOptions.label ?? path.basename(reader.root), 'dir');
    run.dir = reader;
    const env = (await reader.config())?.env;
    if (typeof env === 'string') run.env = env;
    await pollMetrics(run, reader);
    const timer = setInterval(() => void pollMetrics(run, reader), this.options.metricsPollMs);
    timer.unref();
    this.#cleanups.push(() => clearInterval(timer));
    return run;
  }

  /** Shows a run served by an event server (`ws://…`); throws BAD_URL for anything else. */
  connect(url: string, remoteOptions: RemoteRunOptions = {}): DashboardRun {
    const label = remoteOptions.label ?? url.replace(/^wss?:\/\//, '').replace(/\/$/, '');
    const run = this.newRun(label, 'remote');
    let source: RemoteSource;
    try {
      const reconnect = remoteOptions.reconnectMs !== undefined ? { reconnectMs: remoteOptions.reconnectMs } : {};
      source = connectRemoteSource(run, { url, token: remoteOptions.token, warn: this.options.warn, ...reconnect });
    } catch (error) {
      this.#runs.splice(this.#runs.indexOf(run), 1);
      throw error;
    }
    this.#cleanups.push(() => source.close());
    return run;
  }

  /** Releases every source: subscriptions, poll timers, remote connections. */
  close(): void {
    for (const cleanup of this.#cleanups) cleanup();
  }

  private newRun(label: string, kind: DashboardRun['kind']): DashboardRun {
    const run = new DashboardRun(`r${this.#nextId++}`, label, kind, this.options.now, this.options.warn);
    this.#runs.push(run);
    return run;
  }
}

/** Reads the directory's new metrics lines into the run's series and says how far it is. */
async function pollMetrics(run: DashboardRun, reader: RunDirReader): Promise<void> {
  const { rows, restarted } = await reader.newMetrics().catch(() => ({ rows: [], restarted: false }));
  if (restarted) run.series.replaceAll(rows);
  else run.series.load(rows);
  const steps = run.series.all().length;
  if (reader.kind === 'evaluation') return run.setStatus('evaluation', false);
  const skipped = reader.badMetricLines > 0 ? ` (${reader.badMetricLines} unreadable lines skipped)` : '';
  run.setStatus(`${steps} step${steps === 1 ? '' : 's'} logged${skipped}`, false);
}
