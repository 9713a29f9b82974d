/** What `actorgym experiment` does (its options are in experiment.ts). */
import path from 'node:path';
import { createExperimentRunner, loadExperiment, type ExperimentEvent, type ExperimentSummary } from '../../experiment-runner/index.ts';
import { printJson, table } from '../output.ts';
import type { ExperimentCliOptions } from './experiment.ts';

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)}%`);

/** One stderr line per event; a cell's steps every tenth of the run, so parallel logs stay readable. */
function progressLine(event: ExperimentEvent): string | undefined {
  switch (event.type) {
    case 'experiment.started':
      return `experiment: ${event.cells} runs (${event.done} done, ${event.toRun} to run, ${event.parallelism} at once) → ${event.out}`;
    case 'cell.started':
      return `[${event.cell}] ${event.mode === 'resume' ? `resuming at step ${event.fromStep}` : 'started'}`;
    case 'cell.progress':
      return event.step % Math.max(1, Math.floor(event.steps / 10)) === 0 || event.step === event.steps
        ? `[${event.cell}] step ${event.step}/${event.steps} horizon ${event.horizon} success ${pct(event.successRate)}`
        : undefined;
    case 'cell.finished':
      return `[${event.cell}] done: test success ${pct(event.result.testSuccessRate)}, test turns ${event.result.testMeanTurns?.toFixed(2) ?? '–'}, ${(event.result.wallSeconds / 60).toFixed(1)} min`;
    case 'cell.stopped':
      return `[${event.cell}] stopped (resumes from its checkpoint on the next run)`;
    case 'cell.failed':
      return `[${event.cell}] failed: ${event.error}`;
    case 'report.written':
      return `report: ${event.files[0] ?? ''}`;
    default:
      return undefined;
  }
}

function printSummary(summary: ExperimentSummary): void {
  console.log(table([
    ['schedule', '', 'runs', 'test success rate', 'test turns', 'wall / run'],
    ...summary.schedules.map((s) => [
      s.name, s.schedule, `${s.finished}/${s.planned}`,
      s.testSuccess ? `${pct(s.testSuccess.mean)} ± ${(100 * s.testSuccess.std).toFixed(1)}` : '–',
      s.testTurns ? `${s.testTurns.mean.toFixed(2)} ± ${s.testTurns.std.toFixed(2)}` : '–',
      s.wallSeconds ? `${(s.wallSeconds.mean / 60).toFixed(1)} min` : '–',
    ]),
  ]));
  console.log(`\n${summary.status}: ${summary.results.length} runs finished${summary.failures.length > 0 ? `, ${summary.failures.length} failed` : ''} · report ${summary.report}`);
}

export async function runExperiment(file: string, options: ExperimentCliOptions): Promise<void> {
  const experiment = await loadExperiment(file);
  const runner = createExperimentRunner(experiment, {
    ...(options.out !== undefined ? { out: options.out } : {}),
    ...(options.parallel !== undefined ? { parallelism: options.parallel } : {}),
    ...(options.reportOnly ? { reportOnly: true } : {}),
    command: `actorgym experiment ${path.relative(process.cwd(), path.resolve(file))}${options.out !== undefined ? ` --out ${options.out}` : ''}`,
  });
  runner.events.subscribe((event) => {
    const line = progressLine(event);
    if (line !== undefined) process.stderr.write(`${line}\n`);
  });
  let interrupts = 0;
  const interrupt = () => {
    interrupts += 1;
    if (interrupts === 1) {
      process.stderr.write('stopping: each run stops after its current learner step (Ctrl-C again to kill them now)\n');
      runner.stop();
    } else runner.kill();
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    const summary = await runner.run();
    if (options.json) printJson(summary);
    else printSummary(summary);
    if (summary.status === 'failed') process.exitCode = 1;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
