/**
 * Issue 36, LoRA: a fresh adapter (peft's initialisation) leaves the base model's logits exactly
 * unchanged; a training step on the adapters' variables changes only adapter weights, the base
 * weights stay bit-identical; `withoutAdapters` is the base model (RL's KL reference).
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { attachLora } from '../../../policy/hf/lora/attach-lora.ts';
import { initLoraAdapters } from '../../../policy/hf/lora/lora-adapters.ts';
import { LORA_TARGET_MODULES, loraConfig, loraScale } from '../../../policy/hf/lora/lora-config.ts';
import { LoraError } from '../../../policy/hf/lora/lora-error.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { maxAbsDiff, modelDir, readReference, TINY_MODELS } from './fixtures.ts';
import { bitIdentical, logitsOf, nextTokenLoss, snapshotBaseWeights } from './lora-fixtures.ts';

describe('LoRA config', () => {
  it('sorts targets into model order and defaults to all seven projections', () => {
    expect(loraConfig({ r: 4, alpha: 8 }).targetModules).toEqual(LORA_TARGET_MODULES);
    expect(loraConfig({ r: 4, alpha: 8, targetModules: ['v_proj', 'q_proj', 'v_proj'] }).targetModules).toEqual(['q_proj', 'v_proj']);
  });

  it('scales by alpha / r, or alpha / √r with rsLoRA', () => {
    expect(loraScale({ r: 4, alpha: 8, useRslora: false })).toBe(2);
    expect(loraScale({ r: 4, alpha: 8, useRslora: true })).toBe(4);
  });

  it('refuses a bad rank, an unknown target and dropout, naming the option', () => {
    const code = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return e instanceof LoraError ? `${e.code} ${e.field}` : String(e);
      }
      return undefined;
    };
    expect(code(() => loraConfig({ r: 0, alpha: 8 }))).toBe('LORA_CONFIG_INVALID r');
    expect(code(() => loraConfig({ r: 2, alpha: -1 }))).toBe('LORA_CONFIG_INVALID alpha');
    expect(code(() => loraConfig({ r: 2, alpha: 4, targetModules: ['lm_head'] }))).toBe('LORA_CONFIG_INVALID targetModules');
    expect(code(() => loraConfig({ r: 2, alpha: 4, dropout: 0.05 }))).toBe('LORA_UNSUPPORTED dropout');
  });
});

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`LoRA adapters on ${backend}`, () => {
    beforeAll(async () => {
      await selectBackend(backend);
    });

    for (const name of TINY_MODELS) {
      describe(name, () => {
        let base: HfCausalLm;
        beforeAll(async () => {
          base = (await loadHfModel(modelDir(name))).model;
        });
        afterAll(() => base.dispose());

        it('initialises A like peft (uniform in ±1/√in, seeded) and B to zeros', () => {
          const config = loraConfig({ r: 4, alpha: 8 });
          const one = initLoraAdapters(base.config, config, 7);
          const again = initLoraAdapters(base.config, config, 7);
          const other = initLoraAdapters(base.config, config, 8);
          // Per-module seeds: q_proj's A is the same whichever other modules are targeted.
          const qOnly = initLoraAdapters(base.config, loraConfig({ r: 4, alpha: 8, targetModules: ['q_proj'] }), 7);
          try {
            expect(one.pairs).toHaveLength(7 * base.config.numLayers);
            for (const [i, p] of one.pairs.entries()) {
              const a = p.a.dataSync() as Float32Array;
              const bound = 1 / Math.sqrt(p.module.inFeatures);
              expect(p.a.shape).toEqual([p.module.inFeatures, 4]);
              expect(p.b.shape).toEqual([4, p.module.outFeatures]);
              expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(bound);
              expect(Math.max(...a.map(Math.abs))).toBeGreaterThan(bound / 2);
              expect((p.b.dataSync() as Float32Array).every((x) => x === 0)).toBe(true);
              expect(bitIdentical(a, again.pairs[i]!.a.dataSync() as Float32Array)).toBe(true);
              expect(bitIdentical(a, other.pairs[i]!.a.dataSync() as Float32Array)).toBe(false);
              expect(p.a.trainable && p.b.trainable).toBe(true);
            }
            expect(bitIdentical(qOnly.pairs[1]!.a.dataSync() as Float32Array, one.get('model.layers.1.self_attn.q_proj')!.a.dataSync() as Float32Array)).toBe(true);
          } finally {
            for (const a of [one, again, other, qOnly]) a.dispose();
          }
        });

        it('a fresh adapter gives the base logits exactly (max diff 0); withoutAdapters is the base', () => {
          // The LoraCausalLm would own `base`; these tests share it, so only the adapters are freed.
          const lora = attachLora(base, initLoraAdapters(base.config, loraConfig({ r: 8, alpha: 16 }), 1));
          try {
            expect(lora.withoutAdapters).toBe(base);
            for (const ids of readReference(name).logits.inputs) {
              const plain = logitsOf(base, ids);
              const adapted = logitsOf(lora.withAdapters, ids);
              expect(maxAbsDiff(adapted, plain)).toBe(0);
            }
          } finally {
            lora.adapters.dispose();
          }
        });

        it('a training step changes only adapter weights; the base stays bit-identical', () => {
          const lora = attachLora(base, initLoraAdapters(base.config, loraConfig({ r: 4, alpha: 8 }), 3));
          const tensorsBefore = tf.memory().numTensors;
          const optimizer = tf.train.adam(0.02);
          try {
            const ids = readReference(name).logits.inputs[2]!;
            const baseBefore = snapshotBaseWeights(base);
            const adaptersBefore = lora.trainableVariables.map((v) => Float32Array.from(v.dataSync() as Float32Array));
            const plainBefore = logitsOf(base, ids);
            const losses: number[] = [];
            for (let step = 0; step < 3; step++) {
              const loss = optimizer.minimize(() => nextTokenLoss(lora.withAdapters, ids), true, lora.trainableVariables);
              losses.push(loss!.dataSync()[0]!);
              loss!.dispose();
            }
            console.log(`${backend} ${name}: next-token loss ${losses.map((l) => l.toFixed(4)).join(' → ')}`);
            expect(losses[2]!).toBeLessThan(losses[0]!);
            // Every base tensor bit for bit, and the adapters-off forward unchanged.
            const baseAfter = snapshotBaseWeights(base);
            expect(baseAfter.every((w, i) => bitIdentical(w, baseBefore[i]!))).toBe(true);
            expect(maxAbsDiff(logitsOf(base, ids), plainBefore)).toBe(0);
            // Every A and every B moved (B from zero; A from the second step on).
            lora.trainableVariables.forEach((v, i) => expect(bitIdentical(v.dataSync() as Float32Array, adaptersBefore[i]!)).toBe(false));
            expect(maxAbsDiff(logitsOf(lora.withAdapters, ids), plainBefore)).toBeGreaterThan(1e-3);
            // Adam's state is the only thing the steps added.
            optimizer.dispose();
            expect(tf.memory().numTensors).toBe(tensorsBefore);
          } finally {
            optimizer.dispose();
            lora.adapters.dispose();
          }
        });

        it('gradients reach only the adapter variables and the forward pass leaks no tensors', () => {
          const lora = attachLora(base, initLoraAdapters(base.config, loraConfig({ r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] }), 5));
          try {
            const ids = readReference(name).logits.inputs[1]!;
            const before = tf.memory().numTensors;
            const { value, grads } = tf.variableGrads(() => nextTokenLoss(lora.withAdapters, ids), lora.trainableVariables);
            expect(Object.keys(grads).sort()).toEqual(lora.trainableVariables.map((v) => v.name).sort());
            tf.dispose([value, ...Object.values(grads)]);
            expect(tf.memory().numTensors).toBe(before);
          } finally {
            lora.adapters.dispose();
          }
        });
      });
    }
  });
}
