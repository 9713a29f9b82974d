/**
 * The experiment runner: the grid (schedule × seed) of an experiment file, each cell an
 * `actorgym train` child process (run-cell.ts), at most `parallelism` at once, in seed-major order.
 * Resumable: a finished cell is skipped, an interrupted one continues from its checkpoint
 * (`--resume`), so re-running the same command after a crash, a kill or `stop()` finishes the
 * grid without redoing work. The report (report.ts) is written at the end, also after a stop or
 * failures, from whatever has finished.
 *
 * @example
 * const runner = createExperimentRunner(await loadExperiment('experiments/horizon-babyai.json'));
 * runner.events.subscribe((e) => console.log(e.type));
 * const summary = await runner.run(); // { status, report: '…/report.md', … }
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Subject, type Observable } from 'rxjs';
import { aggregate, type ScheduleAggregate } from './aggregate.ts';
import { cellIdentity } from './cell-args.ts';
import { cellStatus, checkIdentity, type CellResult, type CellStatus } from './cell-files.ts';
import { writeReport } from './report.ts';
import { runCell, type CellProgress, type RunningCell } from './run-cell.ts';
import { cellsOf, defaultOut, type Cell, type Experiment } from './spec.ts';

export interface ExperimentRunOptions {
  /** Report directory (the runs go to `<out>/runs/`); default the file's `out`, else runs/experiments/NAME. */
  readonly out?: string;
  /** Runs at once; default the file's `parallelism`. */
  readonly parallelism?: number;
  /** Write the report from what has finished, run nothing. */
  readonly reportOnly?: boolean;
  /** The command that reproduces the report, quoted in it. */
  readonly command?: string;
}

export type ExperimentEvent =
  | { readonly type: 'experiment.started'; readonly out: string; readonly cells: number; readonly done: number; readonly toRun: number; readonly parallelism: number }
  | { readonly type: 'cell.skipped'; readonly cell: string; readonly result: CellResult }
  | { readonly type: 'cell.started'; readonly cell: string; readonly mode: 'fresh' | 'resume'; readonly fromStep: number }
  | ({ readonly type: 'cell.progress'; readonly cell: string } & CellProgress)
  | { readonly type: 'cell.finished'; readonly cell: string; readonly result: CellResult }
  | { readonly type: 'cell.stopped'; readonly cell: string }
  | { readonly type: 'cell.failed'; readonly cell: string; readonly error: string }
  | { readonly type: 'report.written'; readonly files: readonly string[] }
  | { readonly type: 'experiment.finished'; readonly status: ExperimentSummary['status']; readonly finished: number; readonly failed: number };

export interface ExperimentSummary {
  /** done: every cell finished; stopped: stop() before that; failed: some cell failed (the others ran). */
  readonly status: 'done' | 'stopped' | 'failed';
  readonly out: string;
  readonly report: string;
  readonly results: readonly CellResult[];
  readonly failures: readonly { readonly cell: string; readonly error: string }[];
  readonly schedules: readonly ScheduleAggregate[];
}

export interface ExperimentRunner {
  readonly events: Observable<ExperimentEvent>;
  run(): Promise<ExperimentSummary>;
  /** Launches no more cells and stops the running ones after their current learner step (with a checkpoint). */
  stop(): void;
  /** Launches no more cells and kills the running ones now (they resume from their last checkpoint). */
  kill(): void;
}

type PendingCell = { readonly cell: Cell; readonly status: Exclude<CellStatus, { kind: 'done' }> };

/** What a run starts from: the cells already done (their results) and the ones still to run. */
interface CellPlan {
  readonly results: Map<string, CellResult>;
  readonly todo: PendingCell[];
}

/** Checks every cell's identity before anything runs (a changed file fails fast), then reads each one's status. */
async function planCells(experiment: Experiment, cells: readonly Cell[]): Promise<CellPlan> {
  for (const cell of cells) checkIdentity(cell, cellIdentity(experiment, cell));
  const results = new Map<string, CellResult>();
  const todo: PendingCell[] = [];
  for (const cell of cells) {
    const status = await cellStatus(cell, experiment.steps);
    if (status.kind === 'done') results.set(cell.id, status.result);
    else todo.push({ cell, status });
  }
  return { results, todo };
}

/** The cells of a grid and the running children: what `stop` and `kill` reach. */
class CellQueue {
  readonly #running = new Set<RunningCell>();
  #stopped = false;

  constructor(
    private readonly experiment: Experiment,
    private readonly events: Subject<ExperimentEvent>,
  ) {}

  /** Runs `toRun` on `parallelism` workers, recording each outcome in `results` or `failures`. */
  async run(toRun: readonly PendingCell[], parallelism: number, results: Map<string, CellResult>, failures: Map<string, string>): Promise<void> {
    const queue = [...toRun];
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined && !this.#stopped; next = queue.shift()) {
        this.#settle(next.cell, await this.#launch(next), results, failures);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallelism, toRun.length) }, worker));
  }

  stop(): void {
    this.#stopped = true;
    for (const child of this.#running) child.stop();
  }

  kill(): void {
    this.#stopped = true;
    for (const child of this.#running) child.kill();
  }

  async #launch({ cell, status }: PendingCell): Promise<Awaited<RunningCell['outcome']>> {
    this.events.next({ type: 'cell.started', cell: cell.id, mode: status.kind, fromStep: status.kind === 'resume' ? status.fromStep : 0 });
    const child = runCell(this.experiment, cell, status, (p) => this.events.next({ type: 'cell.progress', cell: cell.id, ...p }));
    this.#running.add(child);
    if (this.#stopped) child.stop();
    const outcome = await child.outcome;
    this.#running.delete(child);
    return outcome;
  }

  #settle(cell: Cell, outcome: Awaited<RunningCell['outcome']>, results: Map<string, CellResult>, failures: Map<string, string>): void {
    if (outcome.kind === 'finished') {
      results.set(cell.id, outcome.result);
      this.events.next({ type: 'cell.finished', cell: cell.id, result: outcome.result });
    } else if (outcome.kind === 'stopped') {
      this.events.next({ type: 'cell.stopped', cell: cell.id });
    } else {
      failures.set(cell.id, outcome.error);
      this.events.next({ type: 'cell.failed', cell: cell.id, error: outcome.error });
    }
  }
}

interface FinishInput {
  readonly experiment: Experiment;
  readonly options: ExperimentRunOptions;
  readonly out: string;
  readonly cells: readonly Cell[];
  readonly results: Map<string, CellResult>;
  readonly failures: Map<string, string>;
  readonly events: Subject<ExperimentEvent>;
}

/** Writes the report over every result so far and ends the event stream with the run's status. */
async function finishExperiment({ experiment, options, out, cells, results, failures, events }: FinishInput): Promise<ExperimentSummary> {
  const schedules = aggregate(experiment, cells, results);
  const files = await writeReport({
    experiment, out, cells, results, failures, aggregates: schedules,
    command: options.command ?? `actorgym experiment <file> --out ${out}`,
  });
  events.next({ type: 'report.written', files });
  const status = failures.size > 0 ? 'failed' : results.size === cells.length ? 'done' : 'stopped';
  events.next({ type: 'experiment.finished', status, finished: results.size, failed: failures.size });
  events.complete();
  return {
    status, out, report: path.join(out, 'report.md'),
    results: cells.map((c) => results.get(c.id)).filter((r): r is CellResult => r !== undefined),
    failures: [...failures].map(([cell, error]) => ({ cell, error })),
    schedules,
  };
}

/**
 * Runs an experiment's grid of cells (schedule × seed, each a `train` process), resumably: cells
 * already done are read back, unfinished ones resume from their checkpoint, and the report is
 * written over whatever has finished.
 */
export function createExperimentRunner(experiment: Experiment, options: ExperimentRunOptions = {}): ExperimentRunner {
  const events = new Subject<ExperimentEvent>();
  const out = path.resolve(options.out ?? defaultOut(experiment));
  const parallelism = options.parallelism ?? experiment.parallelism;
  if (!(Number.isInteger(parallelism) && parallelism >= 1)) throw new Error(`parallelism must be a positive integer, got ${parallelism}`);
  const cells = cellsOf(experiment, out);
  const queue = new CellQueue(experiment, events);

  async function run(): Promise<ExperimentSummary> {
    mkdirSync(out, { recursive: true });
    const { results, todo } = await planCells(experiment, cells);
    const failures = new Map<string, string>();
    const toRun = options.reportOnly ? [] : todo;
    events.next({ type: 'experiment.started', out, cells: cells.length, done: results.size, toRun: toRun.length, parallelism });
    for (const cell of cells) {
      const result = results.get(cell.id);
      if (result) events.next({ type: 'cell.skipped', cell: cell.id, result });
    }
    await queue.run(toRun, parallelism, results, failures);
    return finishExperiment({ experiment, options, out, cells, results, failures, events });
  }

  let started: Promise<ExperimentSummary> | undefined;
  return {
    events: events.asObservable(),
    run: () => (started ??= run()),
    stop: () => queue.stop(),
    kill: () => queue.kill(),
  };
}
