// @ts-check
/**
 * Live charts with uPlot: one chart per metric, one line per run (runs overlaid, e.g. the
 * horizon experiment). A chart appears as soon as any run has its metric. Redraws are batched
 * into one animation frame and skipped while the tab is hidden.
 */
import uPlot from '/vendor/uplot.esm.js';
import { el, number, percent, runColor } from './format.js';

/** The metrics charted, in order; `fmt` formats axis values. */
const CHARTS = [
  { key: 'successRate', title: 'Success rate', fmt: percent },
  { key: 'testSuccessRate', title: 'Test success (SFT evaluations)', fmt: percent },
  { key: 'meanReward', title: 'Mean reward' },
  { key: 'horizon', title: 'Horizon (max turns)' },
  { key: 'meanTurns', title: 'Mean turns' },
  { key: 'loss', title: 'Loss (total)' },
  { key: 'valLoss', title: 'Validation loss (SFT)' },
  { key: 'lossPolicy', title: 'Loss: policy' },
  { key: 'lossKl', title: 'Loss: KL term' },
  { key: 'lossEntropy', title: 'Loss: entropy term' },
  { key: 'lossValue', title: 'Loss: value' },
  { key: 'kl', title: 'KL to the reference policy' },
  { key: 'entropy', title: 'Entropy' },
  { key: 'tokensPerSec', title: 'Learner tokens/s' },
  { key: 'stepsPerSec', title: 'Env steps/s' },
  { key: 'aborted', title: 'Aborted episodes' },
  { key: 'clipFraction', title: 'Clip fraction' },
  { key: 'gradNorm', title: 'Gradient norm' },
];

/** Axis ticks: short, and never wider than the axis. @param {number} v */
function compact(v) {
  if (v === 0 || !Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a < 1e-2 || a >= 1e5) return v.toExponential(1);
  return String(Number(v.toPrecision(3)));
}

export class Charts {
  /** @param {HTMLElement} root @param {import('./store.js').Store} store */
  constructor(root, store) {
    this.root = root;
    this.store = store;
    /** @type {Map<string, { card: HTMLElement, plot?: any, series: string }>} */
    this.charts = new Map();
    this.pending = false;
    this.visible = true;
    this.empty = el('p', { class: 'empty', text: 'No metrics yet: charts appear after the first learner step (or the first window of episodes).' });
    root.append(this.empty);
    store.subscribe((kind) => {
      if (kind !== 'board') this.schedule();
    });
    new ResizeObserver(() => this.resize()).observe(root);
  }

  /** @param {boolean} visible */
  setVisible(visible) {
    this.visible = visible;
    if (visible) {
      this.resize();
      this.schedule();
    }
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      // A hidden tab is drawn when it is shown again (setVisible).
      if (this.visible) this.render();
    });
  }

  render() {
    const runs = this.store.runs.filter((run) => (this.store.metrics.get(run.id) ?? []).length > 0);
    this.empty.hidden = runs.length > 0;
    for (const spec of CHARTS) {
      const withKey = runs.filter((run) => (this.store.metrics.get(run.id) ?? []).some((row) => spec.key in row));
      // A metric that is 0 throughout (lossValue without a critic) would only be a flat line.
      const informative = withKey.some((run) => (this.store.metrics.get(run.id) ?? []).some((row) => (row[spec.key] ?? 0) !== 0));
      if (withKey.length === 0 || !informative) continue;
      this.draw(spec, withKey);
    }
  }

  /** @param {{ key: string, title: string, fmt?: (x: number) => string }} spec @param {import('./store.js').RunInfo[]} runs */
  draw(spec, runs) {
    const tables = runs.map((run) => {
      const rows = (this.store.metrics.get(run.id) ?? []).filter((row) => spec.key in row && 'step' in row);
      return [rows.map((row) => row.step), rows.map((row) => row[spec.key])];
    });
    const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    let chart = this.charts.get(spec.key);
    if (!chart) {
      const card = el('figure', { class: 'chart', 'data-metric': spec.key }, [el('figcaption', { text: spec.title })]);
      this.insert(card, spec.key);
      chart = { card, series: '' };
      this.charts.set(spec.key, chart);
    }
    const series = runs.map((run) => `${run.id}:${run.label}:${run.xAxis}`).join('|');
    if (chart.series !== series || !chart.plot) {
      chart.plot?.destroy();
      chart.plot = new uPlot(this.options(spec, runs), data, chart.card);
      chart.series = series;
    } else {
      chart.plot.setData(data);
    }
    const points = data.slice(1).reduce((n, ys) => n + ys.filter((y) => y !== null && y !== undefined).length, 0);
    chart.card.setAttribute('data-points', String(points));
  }

  /** Keeps cards in CHARTS order whatever order they appear in. @param {HTMLElement} card @param {string} key */
  insert(card, key) {
    const order = CHARTS.findIndex((spec) => spec.key === key);
    const after = [...this.root.querySelectorAll('figure.chart')].find(
      (other) => CHARTS.findIndex((spec) => spec.key === other.getAttribute('data-metric')) > order,
    );
    this.root.insertBefore(card, after ?? null);
  }

  /** @param {{ key: string, title: string, fmt?: (x: number) => string }} spec @param {import('./store.js').RunInfo[]} runs */
  options(spec, runs) {
    const fmt = spec.fmt ?? number;
    const tick = spec.fmt ?? compact;
    const xLabel = runs.every((run) => run.xAxis === 'window') ? 'episode window' : 'learner step';
    return {
      width: this.width(),
      height: 180,
      legend: { live: true },
      cursor: { sync: { key: 'actorgym' } },
      scales: { x: { time: false } },
      axes: [
        { label: xLabel, labelSize: 18, size: 32 },
        { values: (_u, values) => values.map((v) => tick(v)), size: 60 },
      ],
      series: [
        { label: 'step' },
        ...runs.map((run) => ({
          label: run.label,
          stroke: runColor(this.store.runIndex(run.id)),
          width: 1.5,
          spanGaps: true,
          points: { show: false },
          value: (_u, v) => fmt(v),
        })),
      ],
    };
  }

  /** The plot width that fills a card (the grid's column width minus the card's padding and border). */
  width() {
    const columns = getComputedStyle(this.root).gridTemplateColumns.split(' ').length || 1;
    return Math.max(240, Math.floor((this.root.clientWidth - 16 * (columns - 1)) / columns) - 26);
  }

  resize() {
    if (!this.visible || this.root.clientWidth === 0) return;
    const width = this.width();
    for (const chart of this.charts.values()) chart.plot?.setSize({ width, height: 180 });
  }
}
