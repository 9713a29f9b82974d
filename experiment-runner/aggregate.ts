/**
 * From cells to numbers per schedule: final test success, test turns and wall time as
 * mean ± std over seeds (sample std, n − 1), and the per-step curves — each run's metric smoothed
 * by a moving average, then averaged over the seeds that reached that step.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CellResult } from './cell-files.ts';
import type { Cell, Experiment } from './spec.ts';

export interface Stat {
  readonly mean: number;
  readonly std: number;
  readonly n: number;
}

export interface CurvePoint {
  readonly step: number;
  readonly mean: number;
  readonly std: number;
  /** Seeds that reached this step. */
  readonly n: number;
}

/** Curves drawn in the report; `smooth: false` for step functions. */
export const CURVES = [
  { metric: 'successRate', file: 'success.svg', title: 'rollout success (train tasks)', yTitle: 'success', yFormat: '.0%', yDomain: [0, 1], smooth: true },
  { metric: 'meanTurns', file: 'turns.svg', title: 'mean turns per episode', yTitle: 'turns', smooth: true },
  { metric: 'horizon', file: 'horizon.svg', title: 'horizon (max turns)', yTitle: 'horizon', smooth: false },
  { metric: 'truncationRate', file: 'truncation.svg', title: 'share of episodes truncated by the horizon', yTitle: 'truncated', yFormat: '.0%', yDomain: [0, 1], smooth: true },
  { metric: 'entropy', file: 'entropy.svg', title: 'policy entropy', yTitle: 'entropy', smooth: true },
] as const;
export type CurveMetric = (typeof CURVES)[number]['metric'];

export interface ScheduleAggregate {
  readonly name: string;
  readonly schedule: string;
  readonly planned: number;
  /** Runs finished and evaluated. */
  readonly finished: number;
  readonly testSuccess: Stat | undefined;
  readonly testTurns: Stat | undefined;
  readonly wallSeconds: Stat | undefined;
  /** Rollout success over each run's last `smooth` steps. */
  readonly finalTrainSuccess: Stat | undefined;
  readonly curves: Readonly<Partial<Record<CurveMetric, readonly CurvePoint[]>>>;
}

export function stat(values: readonly number[]): Stat | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const mean = values.reduce((a, v) => a + v, 0) / n;
  const std = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, std, n };
}

/** Trailing moving average over `k` points. */
export function movingAverage(values: readonly number[], k: number): number[] {
  return values.map((_, i) => {
    const window = values.slice(Math.max(0, i - k + 1), i + 1);
    return window.reduce((a, v) => a + v, 0) / window.length;
  });
}

/** A run's metrics.jsonl, numeric fields only (decisions and reasons are strings). */
export function readMetrics(dir: string): Record<string, number>[] {
  const file = path.join(dir, 'metrics.jsonl');
  if (!existsSync(file)) return [];
  const rows: Record<string, number>[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      rows.push(Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === 'number')));
    } catch {
      // a line cut short by a kill
    }
  }
  return rows.filter((r) => typeof r.step === 'number').sort((a, b) => a.step! - b.step!);
}

function curve(runs: readonly Record<string, number>[][], metric: CurveMetric, k: number): CurvePoint[] {
  const byStep = new Map<number, number[]>();
  for (const rows of runs) {
    const present = rows.filter((r) => typeof r[metric] === 'number');
    const values = movingAverage(present.map((r) => r[metric]!), k);
    present.forEach((r, i) => {
      const list = byStep.get(r.step!) ?? [];
      list.push(values[i]!);
      byStep.set(r.step!, list);
    });
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, ...stat(values)! }));
}

export function aggregate(experiment: Experiment, cells: readonly Cell[], results: ReadonlyMap<string, CellResult>): ScheduleAggregate[] {
  const k = experiment.report.smooth;
  return Object.entries(experiment.schedules).map(([name, schedule]) => {
    const mine = cells.filter((c) => c.scheduleName === name);
    const done = mine.map((c) => results.get(c.id)).filter((r): r is CellResult => r !== undefined);
    const runs = mine.map((c) => readMetrics(c.dir)).filter((rows) => rows.length > 0);
    const finishedRuns = mine.filter((c) => results.has(c.id)).map((c) => readMetrics(c.dir)).filter((rows) => rows.length > 0);
    const curves: Partial<Record<CurveMetric, CurvePoint[]>> = {};
    for (const spec of CURVES) {
      const points = curve(runs, spec.metric, spec.smooth ? k : 1);
      if (points.length > 0) curves[spec.metric] = points;
    }
    const nums = (pick: (r: CellResult) => number | null) => done.map(pick).filter((v): v is number => v !== null);
    return {
      name,
      schedule,
      planned: mine.length,
      finished: done.length,
      testSuccess: stat(nums((r) => r.testSuccessRate)),
      testTurns: stat(nums((r) => r.testMeanTurns)),
      wallSeconds: stat(done.map((r) => r.wallSeconds)),
      finalTrainSuccess: stat(finishedRuns.map((rows) => {
        const tail = rows.slice(-k).map((r) => r.successRate ?? 0);
        return tail.reduce((a, v) => a + v, 0) / Math.max(1, tail.length);
      })),
      curves,
    };
  });
}
