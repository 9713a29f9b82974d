/**
 * Issue 36, item 5: the memory-bounded training scores (chunked output head, optional per-layer
 * recomputation, block-wise attention) give the same gradients as the plain path (forward 'all' logits → log-softmax)
 * within 1e-5, for LoRA adapters and for full fine-tuning, with and without recomputation, at
 * chunk sizes 1, 7 and T, for a masked mean NLL and an entropy term, on the three tiny models.
 *
 * The plain path's embedding lookup (tf.gather) has no gradient on wasm, so full fine-tuning's
 * reference gradients are computed on cpu and compared with both backends.
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
import { trainableWeights, type TrainableHfModel } from '../../../../policy/hf/train/trainable-weights.ts';
import type { SequenceScores } from '../../../../policy/transformer/log-probs.ts';
import { maxAbsDiff, modelDir, TINY_MODELS } from '../fixtures.ts';
import { maskedEntropy, maskedNll, padRight, randomRows, referenceScores, type PaddedBatch } from './reference-scores.ts';

type Loss = (s: SequenceScores, mask: tf.Tensor2D) => tf.Scalar;
const LOSSES: Record<string, Loss> = { nll: maskedNll, entropy: maskedEntropy };
const TOLERANCE = 1e-5;

/** Gradients of `loss(score(tokens))` w.r.t. `vars`, as arrays. */
function gradientsOf(vars: readonly tf.Variable[], batch: PaddedBatch, score: (tokens: tf.Tensor2D) => SequenceScores, loss: Loss): Float32Array[] {
  return tf.tidy(() => {
    const tokens = tf.tensor2d(batch.tokens, [batch.batch, batch.length], 'int32');
    const mask = tf.tensor2d(batch.mask, [batch.batch, batch.length]);
    const { grads } = tf.variableGrads(() => loss(score(tokens), mask), [...vars]);
    return vars.map((v) => grads[v.name]!.dataSync() as Float32Array);
  });
}

function largestDiff(a: readonly Float32Array[], b: readonly Float32Array[]): number {
  return Math.max(...a.map((g, i) => maxAbsDiff(g, b[i]!)));
}

/** Rows of lengths 11, 7, 4 right-padded to T = 11. */
function batchFor(model: HfCausalLm): PaddedBatch {
  return padRight(randomRows(model.config.vocabSize, [11, 7, 4], 36));
}

/** Head chunks 1, 7, T with attention blocks 3, 4, T (one block = full attention), recompute none/layers. */
const VARIANTS: HfScoreOptions[] = ([[1, 3], [7, 4], [11, 11]] as const).flatMap(([positionChunk, attentionBlock]) =>
  (['none', 'layers'] as const).map((recompute) => ({ temperature: 1, positionChunk, attentionBlock, recompute })));

/** LoRA adapters with nonzero B (a fresh B is 0, which would zero A's gradient). */
function loraOn(base: HfCausalLm): LoraCausalLm {
  const adapters = initLoraAdapters(base.config, loraConfig({ r: 4, alpha: 8 }), 11);
  adapters.pairs.forEach((p, i) => p.b.assign(tf.randomNormal(p.b.shape, 0, 0.1, 'float32', i)));
  return attachLora(base, adapters);
}

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`training-score gradients on ${backend}`, () => {
    beforeAll(async () => {
      await selectBackend(backend);
    });

    for (const name of TINY_MODELS) {
      describe(name, () => {
        let base: HfCausalLm;
        let lora: LoraCausalLm;
        beforeAll(async () => {
          await selectBackend(backend);
          base = (await loadHfModel(modelDir(name))).model;
          lora = loraOn(base);
        });
        afterAll(() => lora.dispose());

        for (const [lossName, loss] of Object.entries(LOSSES)) {
          it(`LoRA: ${lossName} gradients equal the plain path's (chunks 1, 7, T; recompute none/layers)`, () => {
            const batch = batchFor(base);
            const vars = lora.trainableVariables;
            const plain = gradientsOf(vars, batch, () => referenceScores(lora.withAdapters, batch, 1), loss);
            expect(Math.max(...plain.map((g) => Math.max(...g.map(Math.abs))))).toBeGreaterThan(1e-3);
            for (const options of VARIANTS) {
              const ours = gradientsOf(vars, batch, (tokens) => hfSequenceScores(lora.withAdapters, tokens, options), loss);
              expect(largestDiff(ours, plain), JSON.stringify(options)).toBeLessThan(TOLERANCE);
            }
          });
        }

        it('LoRA: temperature 0.7 gradients equal the plain path at 0.7', () => {
          const batch = batchFor(base);
          const vars = lora.trainableVariables;
          const both: Loss = (s, m) => tf.add(maskedNll(s, m), tf.mul(0.1, maskedEntropy(s, m)));
          const plain = gradientsOf(vars, batch, () => referenceScores(lora.withAdapters, batch, 0.7), both);
          const ours = gradientsOf(vars, batch, (tokens) => hfSequenceScores(lora.withAdapters, tokens, { temperature: 0.7, positionChunk: 4, attentionBlock: 5, recompute: 'layers' }), both);
          expect(largestDiff(ours, plain)).toBeLessThan(TOLERANCE);
        });
      });
    }
  });
}

describe('full fine-tuning gradients (reference on cpu)', () => {
  for (const name of TINY_MODELS) {
    it(`${name}: every weight's gradient equals the plain path's on cpu and wasm`, async () => {
      await selectBackend('cpu');
      const base = (await loadHfModel(modelDir(name))).model;
      const batch = batchFor(base);
      const reference = new Map<string, Float32Array[]>();
      let trainable: TrainableHfModel = trainableWeights(base, { namePrefix: `ref-${name}/` });
      const vars = (): tf.Variable[] => [...trainable.variables.values()];
      for (const [lossName, loss] of Object.entries(LOSSES)) reference.set(lossName, gradientsOf(vars(), batch, () => referenceScores(trainable.model, batch, 1), loss));
      trainable.dispose();
      base.dispose();
      for (const backend of ['cpu', 'wasm'] as const) {
        await selectBackend(backend);
        const model = (await loadHfModel(modelDir(name))).model;
        trainable = trainableWeights(model, { namePrefix: `${backend}-${name}/` });
        try {
          expect(trainable.variables.size).toBe(vars().length);
          for (const [lossName, loss] of Object.entries(LOSSES)) {
            for (const options of VARIANTS) {
              const ours = gradientsOf(vars(), batch, (tokens) => hfSequenceScores(trainable.model, tokens, options), loss);
              expect(largestDiff(ours, reference.get(lossName)!), `${backend} ${lossName} ${JSON.stringify(options)}`).toBeLessThan(TOLERANCE);
            }
          }
        } finally {
          trainable.dispose();
          model.dispose();
        }
      }
    });
  }
});
