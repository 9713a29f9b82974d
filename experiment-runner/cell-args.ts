/**
 * The `actorgym train` command line of a cell. Each cell is a child process running the real CLI
 * (isolation: one tfjs runtime per run, a crash or OOM takes one cell down, not the grid); its
 * `--json` summary on stdout is the cell's result.
 */
import { fileURLToPath } from 'node:url';
import type { Cell, Experiment, TrainOptions } from './spec.ts';

export const ACTORGYM_BIN = fileURLToPath(new URL('../bin/actorgym.js', import.meta.url));

const FLAGS: Readonly<Record<Exclude<keyof TrainOptions, 'model' | 'stdNorm' | 'historyActionsOnly'>, string>> = {
  tasksPerStep: '--tasks-per-step',
  groupSize: '--group-size',
  concurrency: '--concurrency',
  lr: '--lr',
  epochs: '--epochs',
  minibatch: '--minibatch',
  temperature: '--temperature',
  klCoef: '--kl-coef',
  entropyCoef: '--entropy-coef',
  checkpointEvery: '--checkpoint-every',
  observation: '--observation',
  historyTurns: '--history-turns',
  instructionTokens: '--instruction-tokens',
  actionWords: '--action-words',
  evalEpisodes: '--eval-episodes',
  evalTemperature: '--eval-temperature',
  evalHorizon: '--eval-horizon',
  backend: '--backend',
};

const MODEL_FLAGS: Readonly<Record<keyof NonNullable<TrainOptions['model']>, string>> = {
  dModel: '--d-model',
  nLayers: '--layers',
  nHeads: '--heads',
  dFF: '--ff',
  maxContext: '--context',
};

/** Flags of the base training options, in a stable order. */
export function trainFlags(train: TrainOptions): string[] {
  const args: string[] = [];
  for (const [key, flag] of Object.entries(FLAGS) as [keyof typeof FLAGS, string][]) {
    const value = train[key];
    if (value !== undefined) args.push(flag, String(value));
  }
  for (const [key, flag] of Object.entries(MODEL_FLAGS) as [keyof typeof MODEL_FLAGS, string][]) {
    const value = train.model?.[key];
    if (value !== undefined) args.push(flag, String(value));
  }
  // The CLI can only turn std normalisation off (it is on by default).
  if (train.stdNorm === false) args.push('--no-std-norm');
  if (train.historyActionsOnly === true) args.push('--history-actions-only');
  return args;
}

// A live dashboard per cell would only take ports; the report is the experiment's picture.
const QUIET = ['--no-dashboard', '--json'];

/** The cell's init checkpoint: `{seed}` replaced by its seed. */
export const initOf = (template: string, seed: number): string => template.replaceAll('{seed}', String(seed));

/** A fresh run of the cell. */
export function freshArgs(experiment: Experiment, cell: Cell): string[] {
  return [
    'train', '--env', experiment.env, '--algo', experiment.algo, '--schedule', cell.schedule, '--seed', String(cell.seed),
    '--steps', String(experiment.steps), '--out', cell.dir, ...(experiment.preset !== undefined ? ['--preset', experiment.preset] : []),
    ...(experiment.init !== undefined ? ['--init', initOf(experiment.init, cell.seed)] : []),
    ...trainFlags(experiment.train), ...QUIET,
  ];
}

/**
 * Continuing the cell from its checkpoint: the checkpoint holds the configuration, so only the
 * target step (which may have grown) and the backend, which is not part of it, are passed.
 */
export function resumeArgs(experiment: Experiment, cell: Cell): string[] {
  const backend = experiment.train.backend !== undefined ? ['--backend', experiment.train.backend] : [];
  return ['train', '--env', experiment.env, '--resume', cell.dir, '--steps', String(experiment.steps), ...backend, ...QUIET];
}

/** What makes two runs of a cell the same run: all but the step target (which may grow) and the backend. */
export function cellIdentity(experiment: Experiment, cell: Cell): Record<string, unknown> {
  const { backend: _backend, ...train } = experiment.train;
  return { env: experiment.env, algo: experiment.algo, schedule: cell.schedule, seed: cell.seed, ...(experiment.preset !== undefined ? { preset: experiment.preset } : {}), ...(experiment.init !== undefined ? { init: initOf(experiment.init, cell.seed) } : {}), train: trainFlags(train) };
}
