/**
 * Learning curves of the demonstrations → SFT → RL pipeline (experiments/sft-rl/run.sh, issue 25),
 * drawn only from what the runs wrote (metrics.jsonl and the `--json` summaries) with the chart
 * module the experiment reports use (charts/line-chart.ts).
 *
 *   npx tsx experiments/sft-rl/curves.ts [RUNS=runs/sft-rl] [OUT_DIR=docs/sft-rl]
 *
 * Per env (babyai, textcraft, sciworld, search), two SVGs:
 * - OUT_DIR/ENV.svg: success against training wall minutes, SFT then RL back to back (shaded).
 *   SFT: test success at its evaluation epochs; RL: rollout success on train tasks per learner
 *   step (5-step moving mean) and its final test success; the random agent's mean test success
 *   dashed. Curves are the mean over finished seeds with a ± one std band, not one line per
 *   seed: the seeds share every setting, so their epochs and steps line up one to one, while
 *   three seeds × three series would be nine colours that hide the spread the band shows. Their
 *   seconds differ only by the shared machine's load, so x is the seeds' mean time (RL starts at
 *   the mean SFT time; an RL step's time is its rolloutSeconds + learnSeconds, which add up to
 *   the run's trainSeconds).
 * - OUT_DIR/ENV-loss.svg: SFT train and validation loss per epoch, one line per seed, including
 *   seeds whose SFT is still running (their epochs so far).
 * Runs that are missing or unfinished (their summary file still empty) are named on stderr and
 * left out of the means; a bad file stops the script with an error naming it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { renderLineChart, type ChartPoint, type ChartSeries, type ChartStage } from '../../charts/line-chart.ts';

export const ENVS = ['babyai', 'textcraft', 'sciworld', 'search'] as const;
const SEEDS = [0, 1, 2] as const;
/** Learner steps in the moving mean of the RL rollout success. */
const SMOOTH = 5;

const SftEpoch = z.object({ step: z.number(), loss: z.number(), valLoss: z.number().nullish(), seconds: z.number(), testSuccessRate: z.number().optional() });
const RlStep = z.object({ step: z.number(), successRate: z.number().nullish(), rolloutSeconds: z.number(), learnSeconds: z.number() });
const TrainSummary = z.object({ trainSeconds: z.number(), testSuccessRate: z.number().nullish() });
const RolloutSummary = z.object({ successRate: z.number() });

/** Rows of a metrics.jsonl; a run still writing may end in a half line, which is dropped. */
function readJsonl<T>(file: string, schema: z.ZodType<T>, finished: boolean): T[] {
  if (!existsSync(file)) return [];
  const texts = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const rows: T[] = [];
  for (const [i, text] of texts.entries()) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      if (!finished && i === texts.length - 1) break;
      throw new Error(`${file}:${i + 1}: not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${z.prettifyError(parsed.error)}`);
    rows.push(parsed.data);
  }
  return rows;
}

/** A run's summary; undefined while it runs (run.sh's redirect leaves the file empty) or before. */
function readSummary<T>(file: string, schema: z.ZodType<T>): T | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8').trim();
  if (text === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${file}: not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const count = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;
const seedList = (runs: readonly { seed: number }[]): string => `seed${runs.length === 1 ? '' : 's'} ${runs.map((r) => r.seed).join(', ')}`;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Mean over seeds with a band of ± one sample std (no band for one seed). */
function seedPoint(x: number, ys: readonly number[], label?: string): ChartPoint {
  const m = mean(ys);
  const sd = ys.length > 1 ? Math.sqrt(ys.reduce((a, y) => a + (y - m) ** 2, 0) / (ys.length - 1)) : 0;
  return { x, y: m, ...(ys.length > 1 ? { lower: m - sd, upper: m + sd } : {}), ...(label !== undefined ? { label } : {}) };
}

/** Index-aligned points over seeds' sequences, as long as the shortest. */
function aligned<T>(perSeed: readonly (readonly T[])[], pick: (items: readonly T[]) => ChartPoint): ChartPoint[] {
  const n = perSeed.length === 0 ? 0 : Math.min(...perSeed.map((s) => s.length));
  return Array.from({ length: n }, (_, i) => pick(perSeed.map((s) => s[i]!)));
}

/** Per RL step: seconds since RL began, and the mean rollout success of the last SMOOTH steps. */
function smoothedRl(rows: readonly z.infer<typeof RlStep>[]): { seconds: number; success: number }[] {
  let seconds = 0;
  return rows.flatMap((row, i) => {
    seconds += row.rolloutSeconds + row.learnSeconds;
    const window = rows.slice(Math.max(0, i - SMOOTH + 1), i + 1).flatMap((r) => (typeof r.successRate === 'number' ? [r.successRate] : []));
    return window.length > 0 ? [{ seconds, success: mean(window) }] : [];
  });
}

export interface EnvCurves {
  /** ENV.svg: success against training minutes. */
  readonly success: string;
  /** ENV-loss.svg: SFT loss per epoch and seed. */
  readonly loss: string;
  /** Seeds whose SFT (and, for `rlSeeds`, RL) finished and are in the means. */
  readonly sftSeeds: readonly number[];
  readonly rlSeeds: readonly number[];
  /** One line per missing or unfinished run, e.g. "textcraft seed 2: SFT not finished (7 epochs logged so far); left out". */
  readonly missing: readonly string[];
}

/** The two charts of one env, or undefined when no seed has finished SFT. */
export async function envCurves(root: string, env: string): Promise<EnvCurves | undefined> {
  const dir = path.join(root, env);
  const missing: string[] = [];
  const sft = SEEDS.map((seed) => {
    const summary = readSummary(path.join(dir, `sft-s${seed}.json`), TrainSummary);
    return { seed, summary, epochs: readJsonl(path.join(dir, `sft-s${seed}`, 'metrics.jsonl'), SftEpoch, summary !== undefined) };
  });
  for (const { seed, summary, epochs } of sft) {
    if (summary !== undefined) continue;
    missing.push(`${env} seed ${seed}: SFT ${epochs.length > 0 ? `not finished (${count(epochs.length, 'epoch')} logged so far)` : 'not started'}; left out`);
  }
  const sftDone = sft.flatMap(({ seed, summary, epochs }) => (summary !== undefined ? [{ seed, summary, epochs }] : []));
  if (sftDone.length === 0) return undefined;
  const rlDone = sftDone.flatMap(({ seed }) => {
    const summary = readSummary(path.join(dir, `rl-s${seed}.json`), TrainSummary);
    const steps = readJsonl(path.join(dir, `rl-s${seed}`, 'metrics.jsonl'), RlStep, summary !== undefined);
    if (summary !== undefined) return [{ seed, summary, steps }];
    missing.push(`${env} seed ${seed}: RL ${steps.length > 0 ? `not finished (${count(steps.length, 'step')} logged so far)` : 'not started'}; left out`);
    return [];
  });
  const randoms = SEEDS.flatMap((seed) => {
    const summary = readSummary(path.join(dir, `random-s${seed}.json`), RolloutSummary);
    if (summary === undefined) missing.push(`${env} seed ${seed}: no random-agent rollout`);
    return summary !== undefined ? [summary.successRate] : [];
  });

  const sftEnd = mean(sftDone.map((r) => r.summary.trainSeconds));
  const sftEvals = sftDone.map((r) => r.epochs.filter((e) => e.testSuccessRate !== undefined));
  const series: ChartSeries[] = [{
    name: 'SFT: test success (evaluation epochs)',
    mark: 'line+points',
    points: aligned(sftEvals, (es) => seedPoint(mean(es.map((e) => e.seconds)) / 60, es.map((e) => e.testSuccessRate!), `epoch ${es[0]!.step}`)),
  }];
  const stages: ChartStage[] = [{ from: 0, to: sftEnd / 60, label: 'SFT' }];
  if (rlDone.length > 0) {
    const rlSeconds = mean(rlDone.map((r) => r.summary.trainSeconds));
    series.push({
      name: `RL: rollout success on train tasks (${SMOOTH}-step mean)`,
      points: aligned(rlDone.map((r) => smoothedRl(r.steps)), (ps) => seedPoint((sftEnd + mean(ps.map((p) => p.seconds))) / 60, ps.map((p) => p.success))),
    });
    const tests = rlDone.flatMap((r) => (typeof r.summary.testSuccessRate === 'number' ? [r.summary.testSuccessRate] : []));
    if (tests.length > 0) series.push({ name: 'RL: final test success', mark: 'points', points: [seedPoint((sftEnd + rlSeconds) / 60, tests)] });
    stages.push({ from: sftEnd / 60, to: (sftEnd + rlSeconds) / 60, label: 'RL (GRPO)' });
  }
  const success = await renderLineChart({
    title: `${env}: demonstrations → SFT → RL (GRPO)`,
    xTitle: `training wall time, minutes (mean over SFT ${seedList(sftDone)}, RL ${rlDone.length > 0 ? seedList(rlDone) : 'none yet'})`,
    yTitle: 'success rate (mean ± std over seeds)',
    yFormat: '.0%',
    yDomain: [0, 1],
    series,
    stages,
    ...(randoms.length > 0 ? { baselines: [{ y: mean(randoms), label: `random agent, test (${(100 * mean(randoms)).toFixed(1)}%)` }] } : {}),
  });

  // Per seed, including unfinished SFT runs: their epochs so far are real.
  // Train lines first, then validation: the legend reads as a kind × seed grid.
  const logged = sft.filter((r) => r.epochs.length > 0);
  const tag = (r: (typeof sft)[number]) => `seed ${r.seed}${r.summary === undefined ? ', running' : ''}`;
  const lossSeries: ChartSeries[] = [
    ...logged.map((r): ChartSeries => ({ name: `train, ${tag(r)}`, mark: 'line+points', points: r.epochs.map((e) => ({ x: e.step, y: e.loss })) })),
    ...logged.map((r): ChartSeries => ({
      name: `validation, ${tag(r)}`,
      mark: 'line+points',
      points: r.epochs.flatMap((e) => (typeof e.valLoss === 'number' ? [{ x: e.step, y: e.valLoss }] : [])),
    })),
  ];
  const loss = await renderLineChart({
    title: `${env}: SFT loss per epoch`,
    xTitle: 'epoch',
    yTitle: 'NLL per action token (nats)',
    width: 480,
    height: 220,
    series: lossSeries,
  });
  return { success, loss, sftSeeds: sftDone.map((r) => r.seed), rlSeeds: rlDone.map((r) => r.seed), missing };
}

/** Writes OUT_DIR/ENV.svg and OUT_DIR/ENV-loss.svg per env with runs; returns the notes printed. */
export async function writeCurves(root: string, out: string, envs: readonly string[] = ENVS): Promise<string[]> {
  if (!existsSync(root)) throw new Error(`curves: run directory ${root} does not exist`);
  mkdirSync(out, { recursive: true });
  const notes: string[] = [];
  for (const env of envs) {
    const curves = await envCurves(root, env);
    if (curves === undefined) {
      notes.push(`${env}: no finished SFT run under ${path.join(root, env)}; no picture`);
      continue;
    }
    notes.push(...curves.missing);
    for (const [file, svg] of [[`${env}.svg`, curves.success], [`${env}-loss.svg`, curves.loss]] as const) {
      const target = path.join(out, file);
      writeFileSync(`${target}.tmp`, svg);
      renameSync(`${target}.tmp`, target);
    }
    notes.push(`${env}: wrote ${path.join(out, `${env}.svg`)} and ${env}-loss.svg (SFT seeds ${curves.sftSeeds.join(', ')}; RL seeds ${curves.rlSeeds.join(', ') || 'none'})`);
  }
  return notes;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [root = 'runs/sft-rl', out = 'docs/sft-rl'] = process.argv.slice(2);
  for (const note of await writeCurves(root, out)) process.stderr.write(`${note}\n`);
}
