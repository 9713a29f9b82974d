import { describe, expect, it } from 'vitest';
import { horizonStages, lineChartSpec, renderLineChart, type LineChartOptions } from '../../charts/line-chart.ts';

const options: LineChartOptions = {
  title: 'success vs step',
  yTitle: 'success',
  yFormat: '.0%',
  yDomain: [0, 1],
  series: [
    { name: 'fixed:6', points: [1, 2, 3, 4].map((x) => ({ x, y: 0.1 * x, lower: 0.1 * x - 0.05, upper: 0.1 * x + 0.05 })) },
    { name: 'scaling:[2,4]@2', points: [1, 2, 3, 4].map((x) => ({ x, y: 0.05 * x })) },
    { name: 'test split', mark: 'points', points: [{ x: 4, y: 0.6, label: '3m' }] },
  ],
  stages: horizonStages([{ step: 1, horizon: 2 }, { step: 2, horizon: 2 }, { step: 3, horizon: 4 }, { step: 4, horizon: 4 }]),
  baseline: { y: 0.44, label: 'random (44%)' },
};

describe('line charts (charts/)', () => {
  it('groups equal horizons into shaded stages', () => {
    expect(options.stages).toEqual([{ from: 0, to: 2, label: 'h=2' }, { from: 2, to: 4, label: 'h=4' }]);
    expect(horizonStages([{ step: 1, horizon: 3 }, { step: 2, horizon: 5 }, { step: 3, horizon: 3 }]).map((s) => s.label)).toEqual(['h=3', 'h=5', 'h=3']);
  });

  it('builds one Vega-Lite layer per element: stages, band, lines, points, baseline', () => {
    const spec = lineChartSpec(options) as unknown as { layer: { mark: { type: string; strokeDash?: number[] } }[] };
    expect(spec.layer.map((l) => l.mark.type)).toEqual(['rect', 'text', 'area', 'line', 'point', 'text', 'rule', 'text']);
    expect(spec.layer.find((l) => l.mark.type === 'rule')?.mark.strokeDash).toEqual([5, 4]);
  });

  it('renders an SVG document with the series, title, stage labels and a dashed baseline', async () => {
    const svg = await renderLineChart(options);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    for (const text of ['success vs step', 'fixed:6', 'scaling:[2,4]@2', 'test split', 'h=2', 'h=4', 'random (44%)', 'learner step', '100%']) {
      expect(svg).toContain(text);
    }
    expect(svg).toMatch(/stroke-dasharray="5,4"/);
    // Deterministic: the same input gives the same bytes (reports are diffable).
    expect(await renderLineChart(options)).toBe(svg);
  });
});
