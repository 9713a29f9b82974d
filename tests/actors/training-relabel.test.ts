import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { metricLines } from './metric-lines.ts';

// `relabel`: BabyAI's colours permuted per training episode (policy/relabel.ts). Tiny config as
// in training-resume.test.ts.
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-relabel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: TrainingOptions = {
  env: 'babyai', backend: 'wasm', tasksPerStep: 4, groupSize: 2, schedule: 'fixed:3', seed: 2, steps: 2,
  corpusTasks: 8, checkpointEvery: 0, evalEpisodes: 0, minibatch: 8, relabel: true,
  model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
};

describe('training with relabel', () => {
  it('sends the env its own words, and is reproducible from the seed', async () => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    await createTrainingSystem({ ...base, out: a }).run();
    await createTrainingSystem({ ...base, out: b }).run();
    expect(metricLines(a)).toEqual(metricLines(b));
    // …and the permutation reaches the model: the same run on the env's own words scores otherwise.
    const plain = path.join(dir, 'plain');
    await createTrainingSystem({ ...base, relabel: false, out: plain }).run();
    expect(metricLines(plain).map((m) => m.loss)).not.toEqual(metricLines(a).map((m) => m.loss));
    expect(JSON.parse(readFileSync(path.join(a, 'config.json'), 'utf8'))).toMatchObject({ relabel: true });

    // Decoding is constrained to the relabeled action list; an action mapped back wrongly would
    // name an object that is not there, which BabyAI answers as an invalid action.
    const files = readdirSync(path.join(a, 'trajectories'));
    let steps = 0;
    for (const file of files) {
      for (const line of readFileSync(path.join(a, 'trajectories', file), 'utf8').trim().split('\n')) {
        const episode = JSON.parse(line) as { steps: { action: string; invalidAction: boolean }[] };
        for (const step of episode.steps) {
          steps += 1;
          expect(step.invalidAction, step.action).toBe(false);
        }
      }
    }
    expect(steps).toBeGreaterThan(8);
  }, 120_000);

  it('refuses an env that declares no symmetries, before the run starts', () => {
    expect(() => createTrainingSystem({ ...base, env: 'textcraft', out: path.join(dir, 'c') })).toThrow(
      'relabel needs an env that declares symmetries (EnvSpec.symmetries); "textcraft" declares none',
    );
    expect(existsSync(path.join(dir, 'c'))).toBe(false);
  });
});
