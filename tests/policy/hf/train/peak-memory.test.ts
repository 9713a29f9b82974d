/**
 * Issue 36, item 5: the point of the chunked head, block-wise attention and recomputation is the
 * peak. tf.profile's peakBytes of one forward + backward pass (LoRA gradients of a masked NLL):
 * the plain path holds [B, T, vocab] logits and [B, heads, T, T] scores with all their
 * temporaries; the training scores at small chunks stay well under it, and recomputing layers
 * lowers the peak further.
 */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';

import { selectBackend } from '../../../../policy/backend.ts';
import type { HfCausalLm } from '../../../../policy/hf/causal-lm.ts';
import { loadHfModel } from '../../../../policy/hf/load-hf-model.ts';
import { attachLora } from '../../../../policy/hf/lora/attach-lora.ts';
import { initLoraAdapters } from '../../../../policy/hf/lora/lora-adapters.ts';
import { loraConfig } from '../../../../policy/hf/lora/lora-config.ts';
import { hfSequenceScores, type HfScoreOptions } from '../../../../policy/hf/train/sequence-scores.ts';
import type { SequenceScores } from '../../../../policy/transformer/log-probs.ts';
import { modelDir } from '../fixtures.ts';
import { maskedNll, padRight, randomRows, referenceScores } from './reference-scores.ts';

async function peakBytes(vars: tf.Variable[], tokens: tf.Tensor2D, mask: tf.Tensor2D, score: (t: tf.Tensor2D) => SequenceScores): Promise<number> {
  const profile = await tf.profile(() => {
    const { value, grads } = tf.variableGrads(() => maskedNll(score(tokens), mask), vars);
    tf.dispose([value, ...Object.values(grads)]);
  });
  return profile.peakBytes;
}

describe('peak memory on wasm', () => {
  it('chunked scores peak well below the plain path; recomputing layers lowers it further', async () => {
    await selectBackend('wasm');
    const base: HfCausalLm = (await loadHfModel(modelDir('qwen2-tiny'))).model;
    const lora = attachLora(base, initLoraAdapters(base.config, loraConfig({ r: 4, alpha: 8 }), 1));
    const batch = padRight(randomRows(base.config.vocabSize, [96, 80], 9));
    const tokens = tf.tensor2d(batch.tokens, [batch.batch, batch.length], 'int32');
    const mask = tf.tensor2d(batch.mask, [batch.batch, batch.length]);
    try {
      const vars = lora.trainableVariables;
      const ours = (options: Omit<HfScoreOptions, 'temperature'>) => (t: tf.Tensor2D) => hfSequenceScores(lora.withAdapters, t, { temperature: 1, ...options });
      const plain = await peakBytes(vars, tokens, mask, () => referenceScores(lora.withAdapters, batch, 1));
      const chunked = await peakBytes(vars, tokens, mask, ours({ positionChunk: 8, attentionBlock: 8 }));
      const recomputed = await peakBytes(vars, tokens, mask, ours({ positionChunk: 8, attentionBlock: 8, recompute: 'layers' }));
      console.log(`peak bytes, B 2 × T 96, vocab 256: plain ${plain}, chunked ${chunked}, chunked + recompute ${recomputed}`);
      expect(chunked).toBeLessThan(plain / 2);
      expect(recomputed).toBeLessThan(chunked);
    } finally {
      tf.dispose([tokens, mask]);
      lora.dispose();
    }
  });
});
