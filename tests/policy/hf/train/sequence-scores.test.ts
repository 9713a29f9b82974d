/**
 * Issue 36, item 5: hfSequenceScores returns the learner's SequenceScores (log-prob of tokens[t]
 * given tokens[<t], entropy of that distribution, value of the prefix; 0 at t = 0) equal to the
 * plain path (forward 'all' → log-softmax of logits / temperature) within 1e-5, whatever the chunk
 * size and recomputation; right padding does not change real rows; nothing leaks.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../../policy/backend.ts';
import type { HfCausalLm } from '../../../../policy/hf/causal-lm.ts';
import { loadHfModel } from '../../../../policy/hf/load-hf-model.ts';
import { attachLora, type LoraCausalLm } from '../../../../policy/hf/lora/attach-lora.ts';
import { initLoraAdapters } from '../../../../policy/hf/lora/lora-adapters.ts';
import { loraConfig } from '../../../../policy/hf/lora/lora-config.ts';
import { hfSequenceScores, type HfScoreOptions } from '../../../../policy/hf/train/sequence-scores.ts';
import { createValueHead, type ValueHead } from '../../../../policy/hf/train/value-head.ts';
import type { SequenceScores } from '../../../../policy/transformer/log-probs.ts';
import { maxAbsDiff, modelDir, TINY_MODELS } from '../fixtures.ts';
import { maskedNll, maskedValueSquare, padRight, randomRows, referenceScores, type PaddedBatch } from './reference-scores.ts';

const TOLERANCE = 1e-5;

function arrays(s: SequenceScores): [Float32Array, Float32Array, Float32Array] {
  return [s.logProbs.dataSync() as Float32Array, s.entropy.dataSync() as Float32Array, s.values.dataSync() as Float32Array];
}

function ours(model: HfCausalLm, batch: PaddedBatch, options: HfScoreOptions): [Float32Array, Float32Array, Float32Array] {
  return tf.tidy(() => arrays(hfSequenceScores(model, tf.tensor2d(batch.tokens, [batch.batch, batch.length], 'int32'), options)));
}

function reference(model: HfCausalLm, batch: PaddedBatch, temperature: number, head?: ValueHead): [Float32Array, Float32Array, Float32Array] {
  return tf.tidy(() => arrays(referenceScores(model, batch, temperature, head)));
}

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`hfSequenceScores on ${backend}`, () => {
    for (const name of TINY_MODELS) {
      describe(name, () => {
        let base: HfCausalLm;
        let lora: LoraCausalLm;
        let head: ValueHead;
        const batch = (): PaddedBatch => padRight(randomRows(base.config.vocabSize, [12, 9, 3], 7));
        beforeAll(async () => {
          await selectBackend(backend);
          base = (await loadHfModel(modelDir(name))).model;
          const adapters = initLoraAdapters(base.config, loraConfig({ r: 4, alpha: 8 }), 2);
          adapters.pairs.forEach((p, i) => p.b.assign(tf.randomNormal(p.b.shape, 0, 0.1, 'float32', 100 + i)));
          lora = attachLora(base, adapters);
          head = createValueHead(base.config.hiddenSize, 5);
          head.b.assign(tf.tensor1d([0.25]));
        });
        afterAll(() => {
          lora.dispose();
          tf.dispose([head.w, head.b]);
        });

        it('log-probs, entropies and values equal the plain path (head chunks 1, 5, T; attention blocks 2, 5, T; recompute none/layers; temperature 1 and 0.7)', () => {
          const b = batch();
          for (const temperature of [1, 0.7]) {
            const [lp, ent, val] = reference(lora.withAdapters, b, temperature, head);
            for (const [positionChunk, attentionBlock] of [[1, 2], [5, 5], [b.length, b.length]] as const) {
              for (const recompute of ['none', 'layers'] as const) {
                const [lp2, ent2, val2] = ours(lora.withAdapters, b, { temperature, positionChunk, attentionBlock, recompute, valueHead: head });
                const what = `T=${temperature} chunk ${positionChunk} block ${attentionBlock} ${recompute}`;
                expect(maxAbsDiff(lp2, lp), what).toBeLessThan(TOLERANCE);
                expect(maxAbsDiff(ent2, ent), what).toBeLessThan(TOLERANCE);
                expect(maxAbsDiff(val2, val), what).toBeLessThan(TOLERANCE);
              }
            }
          }
        });

        it('index 0 holds 0; without a value head values are 0; entropy ≤ log V and log-probs ≤ 0', () => {
          const b = batch();
          const [lp, ent, val] = ours(base, b, { temperature: 1 });
          for (let r = 0; r < b.batch; r++) {
            expect([lp[r * b.length], ent[r * b.length]]).toEqual([0, 0]);
          }
          expect(val.every((v) => v === 0)).toBe(true);
          expect(Math.max(...lp)).toBeLessThanOrEqual(0);
          expect(Math.max(...ent)).toBeLessThanOrEqual(Math.log(base.config.vocabSize) + 1e-5);
          expect(Math.min(...lp.filter((_, i) => i % b.length !== 0))).toBeLessThan(-0.1);
        });

        it('right padding does not change a real row: each row alone equals its padded row', () => {
          const b = batch();
          const padded = ours(lora.withAdapters, b, { temperature: 1, valueHead: head, positionChunk: 4, attentionBlock: 3, recompute: 'layers' });
          b.rows.forEach((row, r) => {
            const alone = ours(lora.withAdapters, padRight([row]), { temperature: 1, valueHead: head });
            for (let k = 0; k < 3; k++) {
              expect(maxAbsDiff(padded[k]!.subarray(r * b.length, r * b.length + row.length), alone[k]!), `row ${r} field ${k}`).toBeLessThan(TOLERANCE);
            }
          });
        });

        it('value-head and LoRA gradients of a value loss equal the plain path; no tensor leaks', () => {
          const b = batch();
          const vars = [head.w, head.b, ...lora.trainableVariables];
          const grads = (score: (tokens: tf.Tensor2D) => SequenceScores): Float32Array[] => tf.tidy(() => {
            const tokens = tf.tensor2d(b.tokens, [b.batch, b.length], 'int32');
            const mask = tf.tensor2d(b.mask, [b.batch, b.length]);
            const loss = (): tf.Scalar => {
              const s = score(tokens);
              return tf.add(maskedValueSquare(s, mask), maskedNll(s, mask));
            };
            const { grads: g } = tf.variableGrads(loss, vars);
            return vars.map((v) => g[v.name]!.dataSync() as Float32Array);
          });
          const plain = grads(() => referenceScores(lora.withAdapters, b, 1, head));
          const before = tf.memory().numTensors;
          const mine = grads((tokens) => hfSequenceScores(lora.withAdapters, tokens, { temperature: 1, valueHead: head, positionChunk: 3, attentionBlock: 4, recompute: 'layers' }));
          expect(tf.memory().numTensors).toBe(before);
          expect(Math.max(...plain[0]!.map(Math.abs))).toBeGreaterThan(1e-3);
          plain.forEach((g, i) => expect(maxAbsDiff(mine[i]!, g), vars[i]!.name).toBeLessThan(TOLERANCE));
        });
      });
    }

    it('refuses bad options naming the field; a one-token row scores zeros', async () => {
      await selectBackend(backend);
      const model = (await loadHfModel(modelDir('qwen2-tiny'))).model;
      try {
        const tokens = tf.tensor2d([[1, 2, 3]], [1, 3], 'int32');
        expect(() => hfSequenceScores(model, tokens, { temperature: 0 })).toThrow(/options\.temperature/);
        expect(() => hfSequenceScores(model, tokens, { temperature: 1, positionChunk: 0 })).toThrow(/options\.positionChunk/);
        expect(() => hfSequenceScores(model, tokens, { temperature: 1, attentionBlock: 1.5 })).toThrow(/options\.attentionBlock/);
        expect(() => hfSequenceScores(model, tf.cast(tokens, 'float32') as tf.Tensor2D, { temperature: 1 })).toThrow(/tokens must be int32/);
        const one = hfSequenceScores(model, tf.tensor2d([[4]], [1, 1], 'int32'), { temperature: 1 });
        expect([...one.logProbs.dataSync(), ...one.entropy.dataSync(), ...one.values.dataSync()]).toEqual([0, 0, 0]);
        tf.dispose([tokens, one.logProbs, one.entropy, one.values]);
      } finally {
        model.dispose();
      }
    });
  });
}
