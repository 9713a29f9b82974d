/**
 * Issue 36: the TF.js forward pass of each tiny Hugging Face model matches transformers' logits
 * (largest absolute difference ≤ 1e-4), one sequence at a time and left-padded in one batch.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { maxAbsDiff, modelDir, readReference, readReferenceLogits, TINY_MODELS } from './fixtures.ts';

const TOLERANCE = 1e-4;

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`HF forward parity on ${backend}`, () => {
    beforeAll(async () => {
      await selectBackend(backend);
    });

    for (const name of TINY_MODELS) {
      describe(name, () => {
        let model: HfCausalLm;
        beforeAll(async () => {
          model = (await loadHfModel(modelDir(name))).model;
        });
        afterAll(() => model.dispose());

        it('matches transformers logits for each sequence alone', () => {
          const ref = readReference(name);
          const expected = readReferenceLogits(name);
          for (const [i, ids] of ref.logits.inputs.entries()) {
            const logits = tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);
            const diff = maxAbsDiff(logits, expected[i]!);
            console.log(`${backend} ${name} sequence ${i}: max |Δlogit| = ${diff.toExponential(2)}`);
            expect(diff).toBeLessThanOrEqual(TOLERANCE);
          }
        });

        it('matches them left-padded in one batch, pads excluded', () => {
          const ref = readReference(name);
          const expected = readReferenceLogits(name);
          const batch = leftPad(ref.logits.inputs);
          const before = tf.memory().numTensors;
          const logits = tf.tidy(() => model.forward(batch).logits.arraySync());
          expect(tf.memory().numTensors).toBe(before);
          for (const [i, ids] of ref.logits.inputs.entries()) {
            const pad = batch.length - ids.length;
            const rows = Float32Array.from(logits[i]!.slice(pad).flat());
            expect(maxAbsDiff(rows, expected[i]!)).toBeLessThanOrEqual(TOLERANCE);
          }
        });
      });
    }
  });
}
