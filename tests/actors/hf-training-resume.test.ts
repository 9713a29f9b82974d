/**
 * Issue 36: a Hugging Face model's training run resumes exactly, like our transformer's (issue 3):
 * a step, a stop, and a resume to 2 give the same per-step metrics and byte-identical trained
 * weights and Adam state as 2 steps in one run. LoRA with REINFORCE++, and full fine-tuning with
 * PPO (its value head rides in optimizer.bin), on the tiny chat fixture.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { metricLines } from './metric-lines.ts';

const MODEL = path.resolve('tests/fixtures/hf/qwen2-tiny-chat');
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases = [
  { name: 'lora', algo: 'reinforce++', hf: { model: MODEL, maxNewTokens: 12, lora: { r: 2 } }, weights: 'adapter_model.safetensors' },
  { name: 'full', algo: 'ppo', hf: { model: MODEL, maxNewTokens: 12, mode: 'full' as const }, weights: 'model.safetensors' },
] as const;

describe('exact resume of a Hugging Face run', () => {
  it.each(cases)('$name: 1 step + stop + resume = 2 steps in one run', async ({ name, algo, hf, weights }) => {
    const base: Omit<TrainingOptions, 'steps'> = {
      env: 'babyai', backend: 'wasm', algo, hf, tasksPerStep: 2, groupSize: 2, schedule: 'fixed:2', seed: 3, lr: 1e-2,
      checkpointEvery: 1, evalEpisodes: 0, minibatch: 2,
    };
    const whole = path.join(dir, `${name}-whole`);
    await createTrainingSystem({ ...base, steps: 2, out: whole }).run();

    const parted = path.join(dir, `${name}-parted`);
    const first = createTrainingSystem({ ...base, steps: 2, out: parted });
    first.events.subscribe((e) => {
      if (e.type === 'learner.stepped' && e.step === 1) first.stop('test: interrupt after step 1');
    });
    expect(await first.run()).toMatchObject({ status: 'stopped', steps: 1 });
    const resumed = await createTrainingSystem({ env: 'babyai', backend: 'wasm', steps: 2, resume: parted }).run();
    expect(resumed).toMatchObject({ status: 'done', steps: 2, fromStep: 1 });

    const [a, b] = [metricLines(whole), metricLines(parted)];
    expect(a.map((m) => m.step)).toEqual([1, 2]);
    expect(b).toEqual(a);
    expect(a.some((m) => (m.updates ?? 0) > 0)).toBe(true);
    for (const file of [weights, 'optimizer.bin']) {
      expect(readFileSync(path.join(parted, 'checkpoint', file)).equals(readFileSync(path.join(whole, 'checkpoint', file))), file).toBe(true);
    }
  }, 240_000);
});
