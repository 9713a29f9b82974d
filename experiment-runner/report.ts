/**
 * The report directory: report.md (table of final test success mean ± std over seeds, test turns,
 * wall time, per schedule; the curves; one row per run), one SVG per curve drawn with
 * charts/line-chart.ts (one line per schedule, mean over seeds, ± std band), and
 * report.json with the same numbers for scripts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderLineChart, type ChartSeries } from '../charts/line-chart.ts';
import { CURVES, type ScheduleAggregate, type Stat } from './aggregate.ts';
import type { CellResult } from './cell-files.ts';
import type { Cell, Experiment } from './spec.ts';

export interface ReportInput {
  readonly experiment: Experiment;
  readonly out: string;
  readonly cells: readonly Cell[];
  readonly results: ReadonlyMap<string, CellResult>;
  readonly failures: ReadonlyMap<string, string>;
  readonly aggregates: readonly ScheduleAggregate[];
  /** The command that reproduces the report. */
  readonly command: string;
}

const pct = (s: Stat | undefined): string => (s ? `${(100 * s.mean).toFixed(1)}% ± ${(100 * s.std).toFixed(1)}` : '–');
const num = (s: Stat | undefined): string => (s ? `${s.mean.toFixed(2)} ± ${s.std.toFixed(2)}` : '–');
const minutes = (seconds: number): string => `${(seconds / 60).toFixed(1)} min`;
const cellText = (value: number | null, format: (v: number) => string): string => (value === null ? '–' : format(value));

/** Draws every curve that some schedule has; returns the file names. */
async function writeCharts(input: ReportInput): Promise<{ file: string; title: string }[]> {
  const written: { file: string; title: string }[] = [];
  const baseline = input.experiment.report.randomBaseline;
  for (const spec of CURVES) {
    const series: ChartSeries[] = input.aggregates
      .filter((a) => (a.curves[spec.metric]?.length ?? 0) > 0)
      .map((a) => ({
        name: `${a.name} (${a.schedule})`,
        points: (a.curves[spec.metric] ?? []).map((p) => ({ x: p.step, y: p.mean, ...(p.n > 1 ? { lower: p.mean - p.std, upper: p.mean + p.std } : {}) })),
      }));
    if (series.length === 0) continue;
    const svg = await renderLineChart({
      title: `${spec.title}: mean over seeds${spec.smooth && input.experiment.report.smooth > 1 ? `, ${input.experiment.report.smooth}-step moving average` : ''}`,
      yTitle: spec.yTitle,
      series,
      ...('yFormat' in spec ? { yFormat: spec.yFormat } : {}),
      ...('yDomain' in spec ? { yDomain: spec.yDomain } : {}),
      ...(spec.metric === 'successRate' && baseline !== undefined ? { baseline: { y: baseline, label: `random policy, test (${(100 * baseline).toFixed(0)}%)` } } : {}),
    });
    writeFileSync(path.join(input.out, spec.file), svg);
    written.push({ file: spec.file, title: spec.title });
  }
  return written;
}

function markdown(input: ReportInput, charts: readonly { file: string; title: string }[]): string {
  const { experiment: e } = input;
  const train = JSON.stringify(e.train);
  const lines = [
    `# Experiment: ${e.name}`,
    '',
    ...(e.description ? [e.description, ''] : []),
    `${e.env}, ${e.algo}, ${e.steps} learner steps per run, seeds ${e.seeds.join(', ')}; ${e.preset ? `preset ${e.preset}, ` : ''}${e.init ? `from \`${e.init}\`, ` : ''}training options \`${train}\`.`,
    `Reproduce: \`${input.command}\` (finished runs are kept; re-running resumes the rest).`,
    '',
    '## Final results',
    '',
    'Test success and test mean turns are the final evaluation of each run on the test split; mean ± std over seeds.',
    `Train success is the rollout success over each run's last ${e.report.smooth} learner steps. Wall time is per run, over all its attempts.`,
    '',
    '| schedule | | runs | test success | test mean turns | train success (last steps) | wall time / run |',
    '|---|---|---|---|---|---|---|',
    ...input.aggregates.map((a) =>
      `| ${a.name} | \`${a.schedule}\` | ${a.finished}/${a.planned} | ${pct(a.testSuccess)} | ${num(a.testTurns)} | ${pct(a.finalTrainSuccess)} | ${a.wallSeconds ? minutes(a.wallSeconds.mean) : '–'} |`),
    '',
    '## Curves',
    '',
    'One line per schedule: the mean over seeds of each run\'s curve; the band is ± one std over seeds.',
    '',
    ...charts.flatMap((c) => [`![${c.title}](${c.file})`, '']),
    '## Runs',
    '',
    '| run | steps | test success | test mean turns | wall time | attempts | status |',
    '|---|---|---|---|---|---|---|',
    ...input.cells.map((cell) => {
      const r = input.results.get(cell.id);
      const failure = input.failures.get(cell.id);
      const status = r ? 'done' : failure ? `failed: ${failure.replace(/\|/g, '\\|').slice(0, 160)}` : 'not finished';
      return `| ${cell.id} | ${r?.steps ?? '–'} | ${cellText(r?.testSuccessRate ?? null, (v) => `${(100 * v).toFixed(1)}%`)} | ` +
        `${cellText(r?.testMeanTurns ?? null, (v) => v.toFixed(2))} | ${r ? minutes(r.wallSeconds) : '–'} | ${r?.attempts ?? '–'} | ${status} |`;
    }),
    '',
    `Run directories: \`${path.join(input.out, 'runs')}/<schedule>/seed-<seed>\` (metrics.jsonl, trajectories/, checkpoint/, train.log).`,
    '',
  ];
  return lines.join('\n');
}

/** Writes report.md, the SVG curves and report.json into `out`; returns the files written. */
export async function writeReport(input: ReportInput): Promise<string[]> {
  const charts = await writeCharts(input);
  writeFileSync(path.join(input.out, 'report.md'), markdown(input, charts));
  const json = {
    experiment: input.experiment,
    schedules: input.aggregates,
    runs: input.cells.map((c) => ({ id: c.id, dir: c.dir, result: input.results.get(c.id) ?? null, error: input.failures.get(c.id) ?? null })),
  };
  writeFileSync(path.join(input.out, 'report.json'), `${JSON.stringify(json, null, 2)}\n`);
  return ['report.md', 'report.json', ...charts.map((c) => c.file)].map((f) => path.join(input.out, f));
}
