import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { metricLines } from './metric-lines.ts';

// Issue 25: `train --init DIR` starts from exactly the checkpoint's weights, with the KL
// reference set to them (not to the checkpoint's own reference), its tokenizer and model kept.
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: Omit<TrainingOptions, 'steps'> = {
  env: 'babyai', backend: 'wasm', learnerThreads: 1, tasksPerStep: 2, groupSize: 2, schedule: 'fixed:3', seed: 3,
  corpusTasks: 8, checkpointEvery: 1, evalEpisodes: 0, minibatch: 256, lr: 3e-3, dropUninformative: false,
};
const model = { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 };
const bytes = (run: string, file: string) => readFileSync(path.join(run, 'checkpoint', file));

describe('train --init', () => {
  it('starts from the checkpoint\'s weights, which are also the reference; keeps its tokenizer and model', async () => {
    const first = path.join(dir, 'first');
    await createTrainingSystem({ ...base, model, steps: 2, out: first }).run();
    // After two updates the checkpoint's weights have moved away from its own reference.
    expect(bytes(first, 'weights.bin').equals(bytes(first, 'reference.bin'))).toBe(false);

    const next = path.join(dir, 'next');
    const summary = await createTrainingSystem({ ...base, steps: 1, seed: 9, init: first, out: next }).run();
    expect(summary.config.initFrom).toBe(path.join(first, 'checkpoint'));
    expect(summary.config.model).toEqual(model);
    expect(bytes(next, 'reference.bin').equals(bytes(first, 'weights.bin'))).toBe(true);
    expect(bytes(next, 'tokenizer.json').equals(bytes(first, 'tokenizer.json'))).toBe(true);
    // One update per step: its KL to the reference is measured before the update, so 0 iff the
    // learner started from the reference's (= the checkpoint's) weights.
    const [step] = metricLines(next);
    expect(step?.updates).toBe(1);
    expect(step?.kl).toBeCloseTo(0, 7);
    expect(bytes(next, 'weights.bin').equals(bytes(first, 'weights.bin'))).toBe(false); // and it trained
  });

  it('refuses a model or input setting that differs from the checkpoint\'s, and --init with --resume', async () => {
    const first = path.join(dir, 'first');
    await expect(createTrainingSystem({ ...base, steps: 1, init: first, model: { dModel: 48 }, out: path.join(dir, 'bad') }).run())
      .rejects.toThrow(/CKPT_INCOMPATIBLE.*model \{"dModel":48\}/);
    await expect(createTrainingSystem({ ...base, steps: 1, init: first, historyTurns: 0, out: path.join(dir, 'bad2') }).run())
      .rejects.toThrow(/historyTurns 0/);
    await expect(createTrainingSystem({ ...base, env: 'textcraft', steps: 1, init: first }).run()).rejects.toThrow(/trained on env "babyai"/);
    expect(() => createTrainingSystem({ ...base, steps: 1, init: first, resume: first })).toThrow(/not both/);
  });
});
