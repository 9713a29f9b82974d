/**
 * `actorgym experiment FILE`: runs an experiment file's grid (schedule × seed) with the library
 * runner (experiment-runner/), shows progress on stderr and prints the per-schedule table (or the
 * summary as JSON). Ctrl-C stops every run after its current learner step with a checkpoint; the
 * same command resumes. A second Ctrl-C kills the runs at once. Its options and help; what it does
 * is in experiment-action.ts, imported when the command runs.
 */
import type { Command } from 'commander';
import { positiveInt } from '../output.ts';

export interface ExperimentCliOptions {
  out?: string;
  parallel?: number;
  reportOnly?: boolean;
  json?: boolean;
}

export function registerExperiment(program: Command): void {
  program
    .command('experiment')
    .description('run an experiment file: a grid of training runs (schedule × seed), resumable, with a report (docs/experiments/README.md)')
    .argument('<file>', 'experiment file (JSON)')
    .option('--out <dir>', "report directory; runs go to <dir>/runs (default: the file's \"out\", else runs/experiments/<name>)")
    .option('--parallel <n>', 'runs at once, each a child process (default: the file\'s "parallelism", else 1)', positiveInt('--parallel'))
    .option('--report-only', 'write the report from the finished runs; run nothing')
    .option('--json', 'print the summary as JSON on stdout')
    .action(async (file: string, options: ExperimentCliOptions) => (await import('./experiment-action.ts')).runExperiment(file, options));
}
