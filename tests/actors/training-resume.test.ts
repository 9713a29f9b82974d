import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { metricLines } from './metric-lines.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';

// Issue 3: "N steps + kill + resume N more gives the same per-step metrics as 2N steps in one
// run (same seed and backend)". Tiny config: 2 tasks × G=2, horizon 3 then 4 (the schedule
// changes stage at the resume point), a one-layer model, no evaluation.
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: Omit<TrainingOptions, 'steps'> = {
  env: 'babyai', backend: 'wasm', tasksPerStep: 2, groupSize: 2, schedule: 'scaling:[3,4]@2', seed: 5,
  corpusTasks: 8, checkpointEvery: 1, evalEpisodes: 0, epochs: 2, minibatch: 4,
  model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
};

describe('exact resume (issue 3)', () => {
  // One learner thread, and two (half of each minibatch in a worker: learner/data-parallel.ts).
  it.each([1, 2])('2 steps + stop + resume 2 more = 4 steps in one run, metric for metric (learner threads: %i)', async (learnerThreads) => {
    const whole = path.join(dir, `whole-${learnerThreads}`);
    await createTrainingSystem({ ...base, learnerThreads, steps: 4, out: whole }).run();

    // The interrupted run: stop() after step 2 (its checkpoint is written every step), then resume.
    const parted = path.join(dir, `parted-${learnerThreads}`);
    const first = createTrainingSystem({ ...base, learnerThreads, steps: 4, out: parted });
    const seen: TrainingEvent[] = [];
    first.events.subscribe((e) => {
      seen.push(e);
      if (e.type === 'learner.stepped' && e.step === 2) first.stop('test: interrupt after step 2');
    });
    const interrupted = await first.run();
    expect(interrupted).toMatchObject({ status: 'stopped', steps: 2 });
    expect(metricLines(parted)).toHaveLength(2);
    const horizons = seen.filter((e) => e.type === 'horizon.changed');
    expect(horizons).toEqual([expect.objectContaining({ from: 3, to: 4, step: 3 })]);

    const resumed = await createTrainingSystem({ env: 'babyai', backend: 'wasm', learnerThreads, steps: 4, resume: parted }).run();
    expect(resumed).toMatchObject({ status: 'done', steps: 4, fromStep: 2 });

    const [a, b] = [metricLines(whole), metricLines(parted)];
    expect(a.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(a.map((m) => m.horizon)).toEqual([3, 3, 4, 4]);
    expect(b).toEqual(a);
    // Something was learned, so equal metrics are not the trivial all-zero case.
    expect(a.some((m) => (m.updates ?? 0) > 0)).toBe(true);
  });
});
