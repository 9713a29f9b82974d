/**
 * Learning curves of the demonstrations → SFT → RL pipeline (docs/training-sft.md), drawn from
 * the runs' own metrics.jsonl and JSON summaries (nothing typed in), with the chart module the
 * experiment reports use (dashboard/report/line-chart.ts).
 *
 *   npx tsx experiments/sft-rl/curves.ts [runs/sft-rl] [docs/sft-rl]
 *
 * Per env, two SVGs:
 * - ENV.svg: success against training wall minutes, SFT then RL back to back. Curves are the
 *   mean over the seeds that ran (band: ± one std), at the seeds' mean x: per seed the epochs and
 *   steps line up, their seconds differ only by machine load. SFT: test success at its evaluation
 *   epochs; RL: rollout success on train tasks (5-step moving mean) and the final test success;
 *   the random agent's mean test success dashed.
 * - ENV-loss.svg: SFT train and validation loss per epoch (mean ± std over seeds).
 * Seeds or runs that are missing (or still running) are left out and named on stderr.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderLineChart, type ChartPoint, type ChartSeries } from '../../dashboard/report/line-chart.ts';

type Row = Record<string, number>;
const SMOOTH = 5;

function lines(file: string): Row[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Row);
}

function summary(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8').trim();
  return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

/** Mean and std (sample) of the values; the band is mean ± std. */
function point(x: number, ys: readonly number[], label?: string): ChartPoint {
  const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
  const sd = ys.length > 1 ? Math.sqrt(ys.reduce((a, b) => a + (b - mean) ** 2, 0) / (ys.length - 1)) : 0;
  return { x, y: mean, ...(ys.length > 1 ? { lower: mean - sd, upper: mean + sd } : {}), ...(label !== undefined ? { label } : {}) };
}

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Index-aligned mean over seeds of per-seed sequences (as long as the shortest). */
function aligned<T>(perSeed: readonly (readonly T[])[], pick: (items: readonly T[], i: number) => ChartPoint): ChartPoint[] {
  const n = Math.min(...perSeed.map((s) => s.length));
  return Array.from({ length: Number.isFinite(n) ? n : 0 }, (_, i) => pick(perSeed.map((s) => s[i]!), i));
}

export interface EnvCurves {
  readonly success: string;
  readonly loss: string;
  readonly seeds: readonly number[];
  readonly missing: readonly string[];
}

export async function envCurves(root: string, env: string): Promise<EnvCurves | undefined> {
  const dir = path.join(root, env);
  const missing: string[] = [];
  const seeds = [0, 1, 2].filter((s) => {
    const ok = summary(path.join(dir, `sft-s${s}.json`)) !== undefined;
    if (!ok) missing.push(`${env} seed ${s}: no finished SFT run`);
    return ok;
  });
  if (seeds.length === 0) return undefined;
  const sft = seeds.map((s) => lines(path.join(dir, `sft-s${s}`, 'metrics.jsonl')));
  const sftSeconds = seeds.map((s) => summary(path.join(dir, `sft-s${s}.json`))!.trainSeconds as number);
  const withRl = seeds.filter((s) => {
    const ok = summary(path.join(dir, `rl-s${s}.json`)) !== undefined;
    if (!ok) missing.push(`${env} seed ${s}: no finished RL run`);
    return ok;
  });
  const rl = withRl.map((s) => lines(path.join(dir, `rl-s${s}`, 'metrics.jsonl')));
  const offset = withRl.map((s) => sftSeconds[seeds.indexOf(s)]!);
  const randoms = seeds.map((s) => summary(path.join(dir, `random-s${s}.json`))?.successRate).filter((v): v is number => typeof v === 'number');

  // SFT: test success at the evaluation epochs.
  const sftEvals = sft.map((rows) => rows.filter((r) => typeof r.testSuccessRate === 'number'));
  const sftPoints = aligned(sftEvals, (rows) => point(meanOf(rows.map((r) => r.seconds!)) / 60, rows.map((r) => r.testSuccessRate!), `epoch ${rows[0]!.step}`));
  // RL: smoothed rollout success per step, x = the seed's SFT time plus its RL time so far.
  const rlTrain = rl.map((rows, k) => {
    let t = offset[k]!;
    return rows.map((r, i) => {
      t += (r.rolloutSeconds ?? 0) + (r.learnSeconds ?? 0);
      const window = rows.slice(Math.max(0, i - SMOOTH + 1), i + 1);
      return { x: t / 60, y: meanOf(window.map((w) => w.successRate ?? 0)) };
    });
  });
  const rlPoints = aligned(rlTrain, (ps) => point(meanOf(ps.map((p) => p.x)), ps.map((p) => p.y)));
  const rlTests = withRl.map((s) => summary(path.join(dir, `rl-s${s}.json`))!);
  const finalTest = rlTests.length > 0
    ? [point(meanOf(rlTests.map((t, k) => (offset[k]! + (t.trainSeconds as number)) / 60)), rlTests.map((t) => t.testSuccessRate as number), 'SFT → RL')]
    : [];
  const series: ChartSeries[] = [
    { name: 'SFT: test success (evaluation epochs)', mark: 'line+points', points: sftPoints },
    ...(rlPoints.length > 0 ? [{ name: `RL: rollout success on train tasks (${SMOOTH}-step mean)`, points: rlPoints } satisfies ChartSeries] : []),
    ...(finalTest.length > 0 ? [{ name: 'RL: final test success', mark: 'points', points: finalTest } satisfies ChartSeries] : []),
  ];
  const sftEnd = meanOf(sftSeconds) / 60;
  const success = await renderLineChart({
    title: `${env}: demonstrations → SFT → RL (GRPO), mean over seeds ${seeds.join(', ')}`,
    xTitle: 'training wall time (minutes; shared 2-core machine)',
    yTitle: 'success rate',
    yFormat: '.0%',
    yDomain: [0, 1],
    series,
    stages: [{ from: 0, to: sftEnd, label: 'SFT' }],
    ...(randoms.length > 0 ? { baselines: [{ y: meanOf(randoms), label: `random, test (${(100 * meanOf(randoms)).toFixed(1)}%)` }] } : {}),
  });
  const loss = await renderLineChart({
    title: `${env}: SFT loss per action token (mean over seeds ${seeds.join(', ')})`,
    xTitle: 'epoch',
    yTitle: 'negative log-likelihood (nats)',
    xInteger: true,
    series: [
      { name: 'train', mark: 'line+points', points: aligned(sft, (rows, i) => point(i + 1, rows.map((r) => r.loss!))) },
      { name: 'validation (held-out tasks)', mark: 'line+points', points: aligned(sft, (rows, i) => point(i + 1, rows.map((r) => r.valLoss!))) },
    ],
  });
  return { success, loss, seeds, missing };
}

async function main(): Promise<void> {
  const [root = 'runs/sft-rl', out = 'docs/sft-rl'] = process.argv.slice(2);
  mkdirSync(out, { recursive: true });
  for (const env of ['babyai', 'textcraft', 'sciworld', 'search']) {
    const curves = await envCurves(root, env);
    for (const note of curves?.missing ?? []) process.stderr.write(`${note}\n`);
    if (curves === undefined) {
      process.stderr.write(`${env}: no runs under ${path.join(root, env)}, skipped\n`);
      continue;
    }
    writeFileSync(path.join(out, `${env}.svg`), curves.success);
    writeFileSync(path.join(out, `${env}-loss.svg`), curves.loss);
    process.stderr.write(`${env}: ${path.join(out, `${env}.svg`)}, ${path.join(out, `${env}-loss.svg`)} (seeds ${curves.seeds.join(', ')})\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
