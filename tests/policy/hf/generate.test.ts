/**
 * Issue 36: batched KV-cache decoding of the tiny Hugging Face models gives transformers' greedy
 * generations, the same tokens and log-probs as recomputing the whole sequence, and per-sequence
 * results that do not depend on the batch.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { generate } from '../../../policy/hf/generate.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { sequenceLogProbs } from '../../../policy/hf/sequence-log-probs.ts';
import { maxAbsDiff, modelDir, readReference, readReferenceLogits, TINY_MODELS } from './fixtures.ts';

describe('HF generation with a KV cache (wasm)', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });

  for (const name of TINY_MODELS) {
    describe(name, () => {
      let model: HfCausalLm;
      beforeAll(async () => {
        model = (await loadHfModel(modelDir(name))).model;
      });
      afterAll(() => model.dispose());

      it("greedy decoding of all prompts in one batch gives transformers' 32 tokens and log-probs", async () => {
        const ref = readReference(name);
        const before = tf.memory().numTensors;
        const out = await generate(model, ref.greedy.map((g, i) => ({ prompt: g.prompt, seed: i })), { maxNewTokens: 32, temperature: 0, topP: 1 });
        expect(tf.memory().numTensors).toBe(before);
        for (const [i, g] of ref.greedy.entries()) {
          expect(out[i]!.tokens).toEqual(g.tokens);
          expect(out[i]!.finish).toBe('length');
          expect(maxAbsDiff(out[i]!.logProbs, g.logProbs)).toBeLessThanOrEqual(1e-4);
        }
      });

      it('per-token log-probs of fixed continuations match transformers', async () => {
        const ref = readReference(name);
        const scored = await sequenceLogProbs(model, ref.continuations.map((c) => [...c.prompt, ...c.continuation]));
        for (const [i, c] of ref.continuations.entries()) {
          const mine = scored[i]!.slice(c.prompt.length - 1);
          expect(maxAbsDiff(mine, c.logProbs)).toBeLessThanOrEqual(1e-4);
        }
      });

      for (const sampling of [{ temperature: 0, topP: 1 }, { temperature: 1, topP: 0.9 }]) {
        it(`decoding with the cache equals recomputing every sequence (temperature ${sampling.temperature}, top-p ${sampling.topP})`, async () => {
          const prompts = [[5, 9, 200], [17, 3, 44, 81, 99, 120, 7], [250]];
          const out = await generate(model, prompts.map((prompt, i) => ({ prompt, seed: 100 + i })), { maxNewTokens: 20, ...sampling });
          const full = prompts.map((p, i) => [...p, ...out[i]!.tokens]);
          const recomputed = await sequenceLogProbs(model, full);
          for (const [i, p] of prompts.entries()) {
            const tail = recomputed[i]!.slice(p.length - 1);
            expect(maxAbsDiff(out[i]!.logProbs, tail)).toBeLessThanOrEqual(1e-5);
          }
          if (sampling.temperature === 0) {
            // Every greedy token is the argmax of the recomputed logits at its position.
            const logits = tf.tidy(() => tf.argMax(model.forward(leftPad(full)).logits, -1).arraySync() as number[][]);
            const width = Math.max(...full.map((s) => s.length));
            for (const [i, p] of prompts.entries()) {
              const pad = width - full[i]!.length;
              const argmax = logits[i]!.slice(pad + p.length - 1, pad + full[i]!.length - 1);
              expect(out[i]!.tokens).toEqual(argmax);
            }
          }
        });
      }

      it('refuses to decode past max_position_embeddings; an empty request list gives nothing', async () => {
        await expect(generate(model, [{ prompt: [5, 6], seed: 0 }], { maxNewTokens: 255, temperature: 0, topP: 1 })).rejects.toThrow(/exceeds max_position_embeddings 256/);
        expect(await generate(model, [], { maxNewTokens: 4, temperature: 0, topP: 1 })).toEqual([]);
      });

      it('a sampled sequence is the same alone and in a batch; stop ids end a sequence early', async () => {
        const options = { maxNewTokens: 12, temperature: 1, topP: 0.95 };
        const prompts = [[11, 12, 13], [40, 41], [70, 71, 72, 73, 74]];
        const batched = await generate(model, prompts.map((prompt, i) => ({ prompt, seed: 7 + i })), options);
        for (const [i, prompt] of prompts.entries()) {
          const alone = await generate(model, [{ prompt, seed: 7 + i }], options);
          expect(alone[0]!.tokens).toEqual(batched[i]!.tokens);
          expect(maxAbsDiff(alone[0]!.logProbs, batched[i]!.logProbs)).toBeLessThanOrEqual(1e-5);
        }
        // Stop the first sequence at its 4th token: it ends there, the others run on unchanged.
        const stopId = batched[0]!.tokens[3]!;
        const firstAt = batched[0]!.tokens.indexOf(stopId);
        const stopped = await generate(model, prompts.map((prompt, i) => ({ prompt, seed: 7 + i })), { ...options, stopIds: [stopId] });
        expect(stopped[0]!.tokens).toEqual(batched[0]!.tokens.slice(0, firstAt + 1));
        expect(stopped[0]!.finish).toBe('stop');
        for (const i of [1, 2]) {
          const at = batched[i]!.tokens.indexOf(stopId);
          expect(stopped[i]!.tokens).toEqual(at < 0 ? batched[i]!.tokens : batched[i]!.tokens.slice(0, at + 1));
        }
      });
    });
  }

  it('the llama3 fixture exercises RoPE scaling: without it the logits leave the tolerance', async () => {
    const { model } = await loadHfModel(modelDir('llama3-tiny'));
    const unscaled = new HfCausalLm({ ...model.config, ropeScaling: { type: 'default' } }, model.weights);
    const ref = readReference('llama3-tiny');
    const ids = ref.logits.inputs[2]!;
    const logits = tf.tidy(() => unscaled.forward(leftPad([ids])).logits.dataSync() as Float32Array);
    expect(maxAbsDiff(logits, readReferenceLogits('llama3-tiny')[2]!)).toBeGreaterThan(1e-3);
    model.dispose();
  });
});
