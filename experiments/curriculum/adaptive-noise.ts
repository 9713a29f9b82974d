/**
 * A diagnostic, not a benchmark: how often the adaptive curriculum steps back on synthetic metrics
 * of known truth (adaptive-noise-sim.ts), with the collapse test before issue 25
 * (fixed bar 0.1, turns over all episodes: the same lines without the new fields) and now. Prints
 * one row per setting (tasks per step × 4 rollouts, window): the bar a drop must clear at p = 0.4,
 * the share of stationary windows and of stationary 30-step runs that step back (false backs),
 * and the share of collapse runs that step back (success 0.6 → 0.2 over a window while successful
 * episodes take twice as long). Horizon 20, the maximum, so flat windows hold. Seeded: the same
 * numbers every run (docs/curriculum.md, docs/experiments/horizon.md).
 *
 *   npx tsx experiments/curriculum/adaptive-noise.ts
 */
import { COLLAPSE_DROP, COLLAPSE_Z, decideAdaptive, emptyMemory, stepSignals, successTrendSE, type AdaptiveMemory, type AdaptiveVerdict } from '../../machines/adaptive-horizon.ts';
import { parseSchedule, type AdaptiveSchedule } from '../../machines/schedule.ts';
import { noisyRun, noisyWindows, withoutNoiseFields, type StepTruth } from './adaptive-noise-sim.ts';

type Metrics = Record<string, number>;
type Rule = 'before' | 'now';

function feed(schedule: AdaptiveSchedule, run: readonly Metrics[], rule: Rule): AdaptiveVerdict | undefined {
  let memory: AdaptiveMemory = emptyMemory;
  let last: AdaptiveVerdict | undefined;
  for (const [i, metrics] of run.entries()) {
    last = decideAdaptive(schedule, schedule.max, memory, i + 1, stepSignals(i + 1, rule === 'now' ? metrics : withoutNoiseFields(metrics)));
    if (last.decision === 'back') break;
    memory = last.memory;
  }
  return last;
}

const backs = (schedule: AdaptiveSchedule, runs: readonly Metrics[][], rule: Rule): string =>
  `${((100 * runs.filter((run) => feed(schedule, run, rule)?.decision === 'back').length) / runs.length).toFixed(2)} %`;

const rows: string[][] = [['tasks × 4', 'window', 'bar at p 0.4', 'false backs / window', 'false backs / 30-step run', 'collapse runs caught']];
for (const [tasks, window] of [[8, 5], [8, 10], [16, 5], [16, 10], [32, 5], [32, 10]] as const) {
  const parsed = parseSchedule(`adaptive:min=6,max=20,window=${window}`);
  if (!parsed.ok || parsed.value.kind !== 'adaptive') throw new Error('bad schedule');
  const schedule = parsed.value;
  const stationary = (): StepTruth => ({ success: 0.4, horizon: 20, tasks, group: 4 });
  const collapse = (i: number): StepTruth => {
    const f = Math.min(1, Math.max(0, (i - window) / (window - 1)));
    return { success: 0.6 - 0.4 * f, stretch: 1 + f, horizon: 20, tasks, group: 4 };
  };
  const windows = noisyWindows(1, 4000, window, stationary);
  const runs = Array.from({ length: 1000 }, (_, r) => noisyRun(10_000 + r, 30, stationary));
  const collapses = Array.from({ length: 1000 }, (_, r) => noisyRun(20_000 + r, 3 * window, collapse));
  const flat = Array.from({ length: window }, (_, step) => ({ step, successRate: 0.4, meanTurns: 10, truncationRate: 0.5, entropy: null, groups: tasks }));
  const bar = Math.max(COLLAPSE_DROP, COLLAPSE_Z * (successTrendSE(flat) ?? 0));
  const pair = (set: readonly Metrics[][]) => `${backs(schedule, set, 'before')} → ${backs(schedule, set, 'now')}`;
  rows.push([String(tasks), String(window), `−${bar.toFixed(2)}`, pair(windows), pair(runs), pair(collapses)]);
}
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
console.log('before → now (4,000 stationary windows, 1,000 runs of each kind per row; success 0.4 stationary, 0.6 → 0.2 collapse)');
for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
