// Issue 5: an adaptive schedule in a real (tiny) training run — every step's decision is a
// `curriculum.decided` event and closes its metrics.jsonl line, the next line runs at the decided
// horizon, and a stop + resume replays the same decisions (the curriculum state is checkpointed).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { TIMING_FIELDS } from '../../actors/training/metrics.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-adaptive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// window=2, trunc=0: the horizon binds whenever success is flat, so the tiny run does move it.
const base: Omit<TrainingOptions, 'steps'> = {
  env: 'babyai', backend: 'wasm', tasksPerStep: 2, groupSize: 2, schedule: 'adaptive:min=1,max=5,step=2,window=2,trunc=0', seed: 2,
  corpusTasks: 8, checkpointEvery: 1, evalEpisodes: 0, epochs: 1, minibatch: 4,
  model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
};

function metricLines(run: string): Record<string, number | string>[] {
  return readFileSync(path.join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => {
    const metrics = JSON.parse(line) as Record<string, number | string>;
    for (const field of TIMING_FIELDS) delete metrics[field];
    return metrics;
  });
}

async function run(options: TrainingOptions, stopAfter?: number): Promise<TrainingEvent[]> {
  const training = createTrainingSystem(options);
  const seen: TrainingEvent[] = [];
  training.events.subscribe((e) => {
    seen.push(e);
    if (e.type === 'learner.stepped' && e.step === stopAfter) training.stop('test: interrupt');
  });
  await training.run();
  return seen;
}

describe('adaptive curriculum in training (issue 5)', () => {
  it('logs each decision, follows it, and resumes with the same decisions', async () => {
    const whole = path.join(dir, 'whole');
    const events = await run({ ...base, steps: 6, out: whole });
    const decided = events.filter((e) => e.type === 'curriculum.decided');
    expect(decided.map((e) => e.step)).toEqual([1, 2, 3, 4, 5, 6]);
    // Stream order per step: learner.stepped, then the decision, then a change if any.
    const order = events.filter((e) => ['learner.stepped', 'curriculum.decided', 'horizon.changed'].includes(e.type)).map((e) => e.type);
    expect(order.slice(0, 2)).toEqual(['learner.stepped', 'curriculum.decided']);
    const a = metricLines(whole);
    expect(a.map((m) => m.horizon)[0]).toBe(1);
    for (const [i, m] of a.entries()) {
      expect(m).toMatchObject({ horizonDecision: expect.stringMatching(/^(raise|hold|back)$/), horizonReason: expect.any(String), truncationRate: expect.any(Number) });
      expect(m.horizonNext).toBe(decided[i]?.to);
      if (i + 1 < a.length) expect(a[i + 1]?.horizon).toBe(m.horizonNext);
    }
    expect(a.some((m) => m.horizonDecision === 'raise')).toBe(true);

    const parted = path.join(dir, 'parted');
    await run({ ...base, steps: 6, out: parted }, 3);
    const saved = await readCheckpoint(parted);
    expect(saved.data.state.curriculum).toMatchObject({ completedSteps: 3, lastDecision: { step: 3 }, adaptive: { history: expect.any(Array) } });
    // The schedule may be given again in any spelling of the same schedule (keys reordered, defaults left out).
    const rest = await run({ env: 'babyai', backend: 'wasm', steps: 6, resume: parted, schedule: 'adaptive: window=2, max=5, min=1, trunc=0' });
    expect(rest.filter((e) => e.type === 'curriculum.decided')).toEqual(decided.slice(3).map((e) => ({ ...e, t: expect.any(Number) })));
    expect(metricLines(parted)).toEqual(a);
  });
});
