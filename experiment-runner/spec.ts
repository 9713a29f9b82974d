/**
 * The experiment file (docs/experiments/README.md): one env and algorithm, base training options,
 * named horizon schedules and seeds; the grid is schedule × seed. Validated with zod; every
 * problem is reported with its JSON path, and schedules are parsed here so a typo fails before
 * any run starts. `train` holds only options `actorgym train` takes as flags, because each cell
 * runs as an `actorgym train` child process.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { formatSchedule, parseSchedule } from '../machines/schedule.ts';
import { errorMessage } from '../envs/error-message.ts';

const positiveInt = z.int().min(1);

/** Training options of every cell, by their library names (TrainingOptions); mapped to flags in cell-args.ts. */
export const TrainOptionsSchema = z.strictObject({
  tasksPerStep: positiveInt.optional(),
  groupSize: positiveInt.optional(),
  concurrency: positiveInt.optional(),
  lr: z.number().positive().optional(),
  epochs: positiveInt.optional(),
  minibatch: positiveInt.optional(),
  temperature: z.number().positive().optional(),
  klCoef: z.number().min(0).optional(),
  entropyCoef: z.number().min(0).optional(),
  checkpointEvery: z.int().min(0).optional(),
  observation: z.enum(['full', 'no-action-list', 'objective-first']).optional(),
  stdNorm: z.boolean().optional(),
  historyTurns: z.int().min(0).optional(),
  historyActionsOnly: z.boolean().optional(),
  actionWords: z.enum(['as-written', 'reversed']).optional(),
  instructionTokens: positiveInt.optional(),
  model: z.strictObject({
    dModel: positiveInt.optional(),
    nLayers: positiveInt.optional(),
    nHeads: positiveInt.optional(),
    dFF: positiveInt.optional(),
    maxContext: positiveInt.optional(),
  }).optional(),
  evalEpisodes: z.int().min(0).optional(),
  evalTemperature: z.number().min(0).optional(),
  evalHorizon: positiveInt.optional(),
  backend: z.enum(['auto', 'tensorflow', 'wasm', 'cpu', 'node-gpu', 'node']).optional(),
});
export type TrainOptions = z.infer<typeof TrainOptionsSchema>;

// Names become directories, so they are kept to a safe alphabet.
const dirName = (what: string) => z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, `${what} is 1–64 letters, digits, ".", "_" or "-" (it names a directory)`);
const scheduleName = dirName('a schedule name');

export const ExperimentSchema = z.strictObject({
  name: dirName('the experiment name'),
  description: z.string().optional(),
  env: z.string().min(1),
  algo: z.string().min(1).default('grpo'),
  /** Learner steps of every run. */
  steps: positiveInt,
  seeds: z.array(z.int().min(0)).min(1).refine((s) => new Set(s).size === s.length, 'seeds must be distinct'),
  /** Named schedules: { "fixed-6": "fixed:6", "scaling": "scaling:[6,13,20]@20", … }. */
  schedules: z.record(scheduleName, z.string()).refine((s) => Object.keys(s).length > 0, 'at least one schedule'),
  /** Runs at once (child processes). Default 1. */
  parallelism: positiveInt.default(1),
  /** A named training configuration of `actorgym train --preset` that `train` and the grid override. */
  preset: z.string().min(1).optional(),
  /**
   * Start every run from a checkpoint's weights (`train --init`), e.g. the SFT checkpoint of its
   * seed: `{seed}` in the path is replaced by the cell's seed. Relative to the working directory.
   */
  init: z.string().min(1).optional(),
  train: TrainOptionsSchema.default({}),
  /** Where the runs and the report go; relative to the working directory. Default runs/experiments/NAME. */
  out: z.string().min(1).optional(),
  report: z.strictObject({
    /** Moving average (learner steps) applied to each run's curve before averaging over seeds. Default 5. */
    smooth: positiveInt.default(5),
    /** Random-policy test success, drawn as a dashed baseline on the success chart. */
    randomBaseline: z.number().min(0).max(1).optional(),
  }).default({ smooth: 5 }),
});
export type Experiment = z.infer<typeof ExperimentSchema>;

export type ExperimentParse = { readonly ok: true; readonly value: Experiment } | { readonly ok: false; readonly error: string };

/** Validates a parsed JSON value; `source` names it in errors. Schedules are normalised to their canonical text. */
export function parseExperiment(value: unknown, source = 'experiment'): ExperimentParse {
  const parsed = ExperimentSchema.safeParse(value);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`);
    return { ok: false, error: `${source} is not a valid experiment:\n${lines.join('\n')}` };
  }
  const schedules: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, text] of Object.entries(parsed.data.schedules)) {
    const schedule = parseSchedule(text);
    if (schedule.ok) schedules[name] = formatSchedule(schedule.value);
    else problems.push(`  schedules.${name}: ${schedule.error}`);
  }
  if (problems.length > 0) return { ok: false, error: `${source} is not a valid experiment:\n${problems.join('\n')}` };
  return { ok: true, value: { ...parsed.data, schedules } };
}

/** Reads and validates an experiment file (JSON). */
export async function loadExperiment(file: string): Promise<Experiment> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read experiment file ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${errorMessage(error)}`);
  }
  const parsed = parseExperiment(json, file);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

export interface Cell {
  /** `<schedule name>/seed-<seed>`: also the run directory under `<out>/runs/`. */
  readonly id: string;
  readonly scheduleName: string;
  readonly schedule: string;
  readonly seed: number;
  readonly dir: string;
}

export const defaultOut = (experiment: Experiment): string => experiment.out ?? path.join('runs', 'experiments', experiment.name);

/** The grid in run order: seed-major, so every schedule has a run before any has two. */
export function cellsOf(experiment: Experiment, out: string): Cell[] {
  return experiment.seeds.flatMap((seed) =>
    Object.entries(experiment.schedules).map(([scheduleName, schedule]) => ({
      id: `${scheduleName}/seed-${seed}`,
      scheduleName,
      schedule,
      seed,
      dir: path.resolve(out, 'runs', scheduleName, `seed-${seed}`),
    })),
  );
}
