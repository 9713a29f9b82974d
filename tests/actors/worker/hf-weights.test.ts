/**
 * Issue 37: a Hugging Face run's weights travel to a worker — LoRA adapters, or every weight with
 * full fine-tuning — by name: the worker's model (opened from the same base folder, as
 * `openWorkerPolicy` opens it) decodes with the learner's weights and version after `loadWeights`.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { hfRunModel } from '../../../actors/training/hf/hf-run-model.ts';
import { getEnv } from '../../../envs/index.ts';
import { openHfModels } from '../../../learner/hf/hf-run-models.ts';
import { resolveConfig } from '../../../learner/training-config.ts';
import { selectBackend } from '../../../policy/backend.ts';
import { modelDir } from '../../policy/hf/fixtures.ts';

const env = getEnv('babyai');

beforeAll(async () => {
  await selectBackend('cpu');
});

async function open(mode: 'lora' | 'full', seed: number) {
  const config = resolveConfig('babyai', { steps: 1, seed, hf: { model: modelDir('qwen2-tiny-chat'), mode, lora: { r: 2 } } });
  const models = await openHfModels({ settings: config.hf!, lr: config.lr, seed: config.seed, backend: 'cpu', critic: false });
  return { models, model: hfRunModel(env, models, config, 0) };
}

describe('Hugging Face weights to a worker', () => {
  for (const mode of ['lora', 'full'] as const) {
    it(`${mode}: the worker's trained variables become the learner's, with its version`, async () => {
      const learner = await open(mode, 1);
      const worker = await open(mode, 2);
      // Move the learner's trained variables somewhere no fresh model is.
      for (const [, v] of learner.models.optimizer.params) tf.tidy(() => v.assign(tf.add(v, tf.scalar(0.125))));
      const exported = await learner.model.exportWeights(5);
      const names = exported.tensors.map((t) => t.name);
      if (mode === 'lora') expect(names.every((n) => /\.lora_[AB]$/.test(n))).toBe(true);
      else expect(names).toContain('model.embed_tokens.weight');
      worker.model.loadWeights(exported);
      expect(worker.model.policy.version).toBe(5);
      const mine = new Map(worker.models.optimizer.params);
      for (const t of exported.tensors) expect(Array.from(await mine.get(t.name)!.data())).toEqual(Array.from(t.data));
      for (const side of [learner, worker]) {
        side.model.dispose();
        side.models.dispose();
      }
    }, 60_000);
  }
});
