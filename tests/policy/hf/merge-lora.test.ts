/**
 * Issue 36, item 6: LoRA adapters merged into the base weights (W + scale·A·B) compute what the
 * base with the adapters attached computes, within 1e-5, on each tiny model (plain, rsLoRA, a
 * subset of targets); the base is left unchanged; adapters of another model are refused.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora } from '../../../policy/hf/lora/attach-lora.ts';
import type { LoraOptions } from '../../../policy/hf/lora/lora-config.ts';
import { mergeLora } from '../../../policy/hf/lora/merge-lora.ts';
import { trainedAdapters } from '../../learner/checkpoint/hf-fixtures.ts';
import { maxAbsDiff, modelDir, readReference } from './fixtures.ts';
import { bitIdentical, logitsOf, snapshotBaseWeights } from './lora-fixtures.ts';

const CASES: readonly { model: string; lora: LoraOptions }[] = [
  { model: 'qwen2-tiny', lora: { r: 4, alpha: 8 } },
  { model: 'qwen3-tiny', lora: { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'o_proj', 'down_proj'], useRslora: true } },
  { model: 'llama3-tiny', lora: { r: 8, alpha: 4, targetModules: ['k_proj', 'gate_proj', 'up_proj'] } },
];

beforeAll(async () => {
  await selectBackend('wasm');
});

describe('mergeLora', () => {
  for (const { model: name, lora: options } of CASES) {
    it(`${name}: the merged model's logits equal the adapter-attached model's (≤ 1e-5), the base untouched`, async () => {
      const base = (await loadHfModel(modelDir(name))).model;
      const before = snapshotBaseWeights(base);
      const lora = attachLora(base, trainedAdapters(base.config, options, 17));
      const merged = mergeLora(base.weights, lora.adapters);
      const model = new HfCausalLm(base.config, merged.weights);
      try {
        expect(merged.created.length).toBe(lora.adapters.pairs.length);
        for (const [i, ids] of readReference(name).logits.inputs.entries()) {
          const attached = logitsOf(lora.withAdapters, ids);
          const diff = maxAbsDiff(logitsOf(model, ids), attached);
          const change = maxAbsDiff(attached, logitsOf(base, ids));
          console.log(`${name} sequence ${i}: max |Δlogit| merged vs attached = ${diff.toExponential(2)} (the adapters move logits by up to ${change.toFixed(3)})`);
          expect(change).toBeGreaterThan(0.05);
          expect(diff).toBeLessThanOrEqual(1e-5);
        }
        snapshotBaseWeights(base).forEach((w, i) => expect(bitIdentical(w, before[i]!)).toBe(true));
      } finally {
        tf.dispose([...merged.created]);
        lora.dispose();
      }
    });
  }

  it('refuses adapters made for another model, leaking nothing', async () => {
    const qwen2 = (await loadHfModel(modelDir('qwen2-tiny'))).model;
    const adapters = trainedAdapters({ ...qwen2.config, hiddenSize: 48 }, { r: 2, alpha: 2, targetModules: ['q_proj'] }, 1);
    const tensors = tf.memory().numTensors;
    expect(() => mergeLora(qwen2.weights, adapters)).toThrow(/model\.layers\.0\.self_attn\.q_proj: adapter is \[48 → \d+\], the model's projection \[32 → \d+\]/);
    expect(tf.memory().numTensors).toBe(tensors);
    adapters.dispose();
    qwen2.dispose();
  });
});
