import { describe, expect, it } from 'vitest';
import { MAX_METRIC_ROWS, MetricSeries } from '../../dashboard/server/metric-series.ts';

const finished = (outcome: string, reward: number, turns: number) => ({ type: 'episode.finished', t: 0, episodeId: 'e', outcome, reward, turns });

describe('MetricSeries (issue 6: chart rows)', () => {
  it('charts learner steps from learner.stepped, keeping only finite numbers', () => {
    const series = new MetricSeries(() => 0);
    series.apply({ type: 'training.started', t: 0 });
    series.apply({ type: 'learner.stepped', t: 0, step: 1, metrics: { step: 1, successRate: 0.5, loss: Number.NaN, note: 'x' } });
    expect(series.takePending()).toEqual({ replace: false, rows: [{ step: 1, successRate: 0.5 }] });
    expect(series.takePending()).toBeUndefined();
    expect(series.xAxis).toBe('step');
  });

  it('gives a rollout-only run windows of finished episodes, and drops them once a learner step arrives', () => {
    let now = 0;
    const series = new MetricSeries(() => now);
    series.apply({ type: 'run.started', t: 0, episodes: 100, concurrency: 8, horizon: 6 });
    for (let i = 0; i < 4; i++) series.apply({ type: 'env.stepped', t: 0, episodeId: 'e', turn: i });
    now = 2_000;
    for (let i = 0; i < 7; i++) series.apply(finished(i < 2 ? 'success' : 'failure', i < 2 ? 1 : 0, 3));
    expect(series.takePending()).toBeUndefined();
    series.apply(finished('aborted', 0, 1));
    const window = series.takePending();
    expect(window?.rows).toEqual([{ step: 1, horizon: 6, successRate: 2 / 7, meanReward: 2 / 7, meanTurns: 3, episodes: 8, aborted: 1, stepsPerSec: 2 }]);
    expect(series.xAxis).toBe('window');
    series.apply(finished('success', 1, 1));
    series.apply({ type: 'run.finished', t: 0 });
    expect(series.takePending()?.rows).toHaveLength(1);
    series.apply({ type: 'learner.stepped', t: 0, step: 1, metrics: { step: 1 } });
    expect(series.takePending()).toEqual({ replace: true, rows: [{ step: 1 }] });
    expect(series.xAxis).toBe('step');
  });

  it('halves its rows past MAX_METRIC_ROWS, so a long run stays bounded', () => {
    const series = new MetricSeries(() => 0);
    series.load(Array.from({ length: MAX_METRIC_ROWS + 1 }, (_, i) => ({ step: i + 1 })));
    expect(series.all().length).toBeLessThanOrEqual(MAX_METRIC_ROWS);
    expect(series.all().at(-1)).toEqual({ step: MAX_METRIC_ROWS });
    expect(series.takePending()?.replace).toBe(true);
  });

  it('puts a resumed run’s earlier steps before the live ones', () => {
    const series = new MetricSeries(() => 0);
    series.apply({ type: 'learner.stepped', t: 0, step: 3, metrics: { step: 3 } });
    series.takePending();
    series.preload([{ step: 1 }, { step: 2 }]);
    expect(series.takePending()).toEqual({ replace: true, rows: [{ step: 1 }, { step: 2 }, { step: 3 }] });
  });
});
