/**
 * Server-side line charts as SVG strings, for reports (experiment reports, learning curves):
 * x is usually the learner step, y a metric, one line per series; optional shaded horizon
 * stages, a ±band per series, and a dashed baseline. The chart is a Vega-Lite spec
 * (`lineChartSpec`, pure, so it can be inspected or embedded elsewhere) rendered by Vega's
 * headless View (renderer 'none' + toSVG): no canvas, no browser, no hand-drawn SVG.
 * In charts/, apart from dashboard/, so that experiment reports (experiment-runner/report.ts) and
 * scripts draw with it without the runtime depending on its viewer.
 *
 * @example
 * const svg = await renderLineChart({ yTitle: 'success', yFormat: '.0%', yDomain: [0, 1],
 *   series: [{ name: 'fixed:6', points: [{ x: 1, y: 0.2 }, { x: 2, y: 0.3 }] }],
 *   baseline: { y: 0.44, label: 'random' } });
 * writeFileSync('success.svg', svg);
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  /** A band around the line (e.g. ± std over seeds); drawn when both are given. */
  readonly lower?: number;
  readonly upper?: number;
  /** Tooltip-like label written next to a point (only for `mark: 'points'`). */
  readonly label?: string;
}

export interface ChartSeries {
  readonly name: string;
  readonly points: readonly ChartPoint[];
  /** Default 'line'. */
  readonly mark?: 'line' | 'points' | 'line+points';
}

/** A shaded x range, e.g. the learner steps that ran at one horizon. */
export interface ChartStage {
  readonly from: number;
  readonly to: number;
  readonly label: string;
}

/** A dashed horizontal line, e.g. the random policy's success. */
export interface ChartBaseline {
  readonly y: number;
  readonly label: string;
  /** Default grey. */
  readonly color?: string;
}

export interface LineChartOptions {
  readonly series: readonly ChartSeries[];
  readonly yTitle: string;
  readonly xTitle?: string;
  readonly title?: string;
  readonly stages?: readonly ChartStage[];
  readonly baseline?: ChartBaseline;
  /** More dashed lines (e.g. a target), drawn like `baseline`. */
  readonly baselines?: readonly ChartBaseline[];
  readonly yDomain?: readonly [number, number];
  /** d3-format of the y axis, e.g. '.0%'. */
  readonly yFormat?: string;
  /** Integer ticks on x (learner steps). Default true. */
  readonly xInteger?: boolean;
  readonly width?: number;
  readonly height?: number;
}

const STAGE_SHADES = ['#e8eef7', '#f3f3f3'];

type Layer = Record<string, unknown>;

/** The Vega-Lite spec of the chart (layers: stages, bands, lines, points, baseline). */
export function lineChartSpec(options: LineChartOptions): TopLevelSpec {
  const names = options.series.map((s) => s.name);
  const x = {
    field: 'x', type: 'quantitative', title: options.xTitle ?? 'learner step', scale: { zero: false, nice: false },
    ...((options.xInteger ?? true) ? { axis: { format: 'd', tickMinStep: 1 } } : {}),
  };
  const y = {
    field: 'y', type: 'quantitative', title: options.yTitle,
    ...(options.yDomain ? { scale: { domain: [...options.yDomain] } } : {}),
    ...(options.yFormat ? { axis: { format: options.yFormat } } : {}),
  };
  // One color scale for every layer, in series order, so a series keeps its color in lines and bands.
  const color = { field: 'series', type: 'nominal', title: null, scale: { domain: names }, legend: { orient: 'bottom', direction: 'horizontal', columns: names.length > 4 ? 3 : 2, labelLimit: 1000, symbolType: 'stroke', symbolOpacity: 1, symbolStrokeWidth: 2.5 } };
  const rows = (pick: (s: ChartSeries) => boolean) =>
    options.series.filter(pick).flatMap((s) => s.points.map((p) => ({ series: s.name, ...p })));
  const layers: Layer[] = [];

  if (options.stages && options.stages.length > 0) {
    const stages = options.stages.map((s, i) => ({ ...s, mid: (s.from + s.to) / 2, shade: STAGE_SHADES[i % 2] }));
    layers.push({
      data: { values: stages },
      mark: { type: 'rect', opacity: 0.9 },
      encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' }, fill: { field: 'shade', type: 'nominal', scale: null } },
    });
    layers.push({
      data: { values: stages },
      mark: { type: 'text', baseline: 'top', dy: 4, fontSize: 10, color: '#555' },
      encoding: { x: { field: 'mid', type: 'quantitative' }, y: { value: 0 }, text: { field: 'label' } },
    });
  }
  const banded = rows((s) => s.points.some((p) => p.lower !== undefined && p.upper !== undefined));
  if (banded.length > 0) {
    layers.push({
      data: { values: banded.filter((r) => r.lower !== undefined && r.upper !== undefined) },
      // Clipped: a mean − std band can leave a fixed domain (a success rate below 0).
      mark: { type: 'area', opacity: 0.15, clip: true },
      encoding: { x, y: { field: 'lower', type: 'quantitative' }, y2: { field: 'upper' }, color },
    });
  }
  const lined = rows((s) => (s.mark ?? 'line') !== 'points');
  if (lined.length > 0) {
    layers.push({
      data: { values: lined },
      mark: { type: 'line', strokeWidth: 1.6, point: false, clip: true },
      encoding: { x, y, color },
    });
  }
  const pointed = rows((s) => (s.mark ?? 'line') !== 'line');
  if (pointed.length > 0) {
    layers.push({ data: { values: pointed }, mark: { type: 'point', filled: true, size: 36, opacity: 1 }, encoding: { x, y, color } });
    if (pointed.some((r) => r.label !== undefined)) {
      layers.push({
        data: { values: pointed.filter((r) => r.label !== undefined) },
        mark: { type: 'text', dy: -9, fontSize: 9, color: '#444' },
        encoding: { x, y, text: { field: 'label' } },
      });
    }
  }
  for (const { y: at, label, color: ruleColor = '#888' } of [...(options.baseline ? [options.baseline] : []), ...(options.baselines ?? [])]) {
    // A layer without data draws nothing, even with datum encodings: give each one row.
    layers.push({ data: { values: [{}] }, mark: { type: 'rule', strokeDash: [5, 4], color: ruleColor }, encoding: { y: { datum: at, type: 'quantitative' } } });
    layers.push({
      data: { values: [{}] },
      mark: { type: 'text', align: 'right', baseline: 'bottom', dy: -3, fontSize: 10, color: ruleColor },
      encoding: { x: { value: (options.width ?? 640) - 4 }, y: { datum: at, type: 'quantitative' }, text: { value: label } },
    });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(options.title ? { title: { text: options.title, anchor: 'start' } } : {}),
    width: options.width ?? 640,
    height: options.height ?? 300,
    background: 'white',
    config: { font: 'sans-serif', view: { stroke: '#ccc' } },
    layer: layers,
  } as unknown as TopLevelSpec;
}

/**
 * Vega numbers clip paths with a process-wide counter (clip1, clip2, … across renders); numbering
 * them per document makes the same chart the same bytes, so committed reports diff cleanly.
 */
function renumberClips(svg: string): string {
  const ids = new Map<string, string>();
  return svg.replace(/(id="|url\(#)clip(\d+)/g, (_, prefix: string, n: string) => {
    if (!ids.has(n)) ids.set(n, `clip${ids.size + 1}`);
    return `${prefix}${ids.get(n)!}`;
  });
}

/** Renders the chart to an SVG document string. */
export async function renderLineChart(options: LineChartOptions): Promise<string> {
  const view = new View(parse(compile(lineChartSpec(options)).spec), { renderer: 'none' });
  try {
    return renumberClips(await view.toSVG());
  } finally {
    view.finalize();
  }
}

/** Shaded stages from per-step horizons: one stage per run of equal horizons, from step − 1 to step. */
export function horizonStages(rows: readonly { readonly step: number; readonly horizon: number }[]): ChartStage[] {
  const stages: ChartStage[] = [];
  for (const row of rows) {
    const last = stages[stages.length - 1];
    if (last && last.label === `h=${row.horizon}` && last.to === row.step - 1) stages[stages.length - 1] = { ...last, to: row.step };
    else stages.push({ from: row.step - 1, to: row.step, label: `h=${row.horizon}` });
  }
  return stages;
}
