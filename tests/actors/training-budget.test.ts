import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTrainingSystem } from '../../actors/training-system.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { metricLines } from './metric-lines.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a training time budget (maxMinutes)', () => {
  it('ends the run as done after the step that reaches it: checkpoint and test evaluation, fewer steps than asked', async () => {
    const out = path.join(dir, 'run');
    // 1 ms of budget: reached by the end of the first step.
    const training = createTrainingSystem({
      env: 'babyai', backend: 'wasm', learnerThreads: 1, steps: 50, maxMinutes: 1 / 60_000, out,
      tasksPerStep: 2, groupSize: 2, schedule: 'fixed:3', corpusTasks: 8, checkpointEvery: 0, evalEpisodes: 3,
      model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 },
    });
    const seen: TrainingEvent[] = [];
    training.events.subscribe((e) => seen.push(e));
    const summary = await training.run();
    expect(summary).toMatchObject({ status: 'done', steps: 1, timeBudgetReached: true });
    expect(summary.checkpoint).toBe(path.join(out, 'checkpoint'));
    expect(summary.evaluation?.episodes).toBe(3);
    expect(metricLines(out)).toHaveLength(1);
    expect(seen.find((e) => e.type === 'training.finished')).toMatchObject({ status: 'done', steps: 1, reason: 'time budget of 0.000016666666666666667 min' });
  });

  it('is not reached by a run that ends first, and a bad budget is an error', async () => {
    const summary = await createTrainingSystem({
      env: 'babyai', backend: 'wasm', learnerThreads: 1, steps: 1, maxMinutes: 60,
      tasksPerStep: 2, groupSize: 2, schedule: 'fixed:3', corpusTasks: 8, evalEpisodes: 0,
      model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 },
    }).run();
    expect(summary).toMatchObject({ status: 'done', steps: 1, timeBudgetReached: false });
    for (const maxMinutes of [0, -1, Number.NaN]) {
      expect(() => createTrainingSystem({ env: 'babyai', steps: 1, maxMinutes })).toThrow(/maxMinutes must be a positive number of minutes/);
    }
  });
});
