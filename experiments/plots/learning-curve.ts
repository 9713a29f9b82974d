/**
 * Draws a learning curve as SVG with charts/line-chart.ts (Vega-Lite, rendered
 * server-side): the rollout success rate per learner step (moving average of 5) with the horizon
 * stages shaded, test-split success of checkpoint snapshots as points (labelled with the training
 * wall time in minutes), the random baseline and the 90% mark as dashed lines.
 *
 *   npx tsx experiments/plots/learning-curve.ts RUN_DIR EVALS.json OUT.svg [--random 0.444] [--target 0.9|none] [--title "…"]
 *
 * EVALS.json: [{ "step": 40, "seconds": 95, "testSuccessRate": 0.47 }, …]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { horizonStages, renderLineChart, type ChartBaseline, type ChartSeries } from '../../charts/line-chart.ts';

export interface EvalPoint {
  readonly step: number;
  readonly seconds: number;
  readonly testSuccessRate: number;
}

const SMOOTHING = 5;

export function learningCurveSvg(
  metrics: readonly Record<string, number>[],
  evals: readonly EvalPoint[],
  options: { random?: number; title?: string; target?: number | null } = {},
): Promise<string> {
  const smooth = metrics.map((m, i) => {
    const window = metrics.slice(Math.max(0, i - SMOOTHING + 1), i + 1);
    return { x: m.step ?? 0, y: window.reduce((a, w) => a + (w.successRate ?? 0), 0) / window.length };
  });
  const series: ChartSeries[] = [{ name: `rollout success (train tasks, ${SMOOTHING}-step mean)`, points: smooth }];
  if (evals.length > 0) {
    series.push({
      name: 'test split (labels: training wall time, minutes)',
      mark: 'line+points',
      points: evals.map((e) => ({ x: e.step, y: e.testSuccessRate, label: `${Math.round(e.seconds / 60)}m` })),
    });
  }
  // The 90 % mark is BabyAI's target (issue 3); other envs pass target null.
  const target = options.target === undefined ? 0.9 : options.target;
  const baselines: ChartBaseline[] = target === null ? [] : [{ y: target, label: `${Math.round(target * 100)}%`, color: '#c33' }];
  if (options.random !== undefined) baselines.push({ y: options.random, label: `random, test (${Math.round(options.random * 100)}%)` });
  const stepped = metrics.filter((m) => typeof m.step === 'number' && typeof m.horizon === 'number') as { step: number; horizon: number }[];
  return renderLineChart({
    title: options.title ?? 'success rate',
    yTitle: 'success rate',
    yFormat: '.0%',
    yDomain: [0, 1],
    width: 680,
    height: 300,
    series,
    stages: horizonStages(stepped),
    baselines,
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [run, evalsFile, out] = process.argv.slice(2);
  if (!run || !evalsFile || !out) throw new Error('usage: learning-curve.ts RUN_DIR EVALS.json OUT.svg [--random R] [--target T|none] [--title T]');
  const opt = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const metrics = readFileSync(path.join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
  const evals = JSON.parse(readFileSync(evalsFile, 'utf8')) as EvalPoint[];
  const random = opt('random');
  const title = opt('title');
  const target = opt('target');
  writeFileSync(
    out,
    await learningCurveSvg(metrics, evals, {
      ...(random !== undefined ? { random: Number(random) } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(target !== undefined ? { target: target === 'none' ? null : Number(target) } : {}),
    }),
  );
}
