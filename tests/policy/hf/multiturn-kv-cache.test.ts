/**
 * Issue 36 (item 4, multi-turn): KvCache.extendStep appends ragged chunks of new ids to cached
 * rows in one forward. Every extended row's next-token logits equal a forward of its whole
 * sequence; a row given no chunk stays untouched (same position, and decoding it afterwards equals
 * decoding its sequence alone); assemble/rowPrefix move rows in and out of a batch exactly.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { KvCache } from '../../../policy/hf/kv-cache.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { maxAbsDiff, modelDir, TINY_MODELS } from './fixtures.ts';

/** Next-token log-probs [vocab] of each whole sequence, each computed alone. */
function aloneLogProbs(model: HfCausalLm, sequences: readonly (readonly number[])[]): Float32Array[] {
  return sequences.map((s) => tf.tidy(() => tf.logSoftmax(model.forward(leftPad([s]), undefined, 'last').logits).dataSync() as Float32Array));
}

/** Row r's log-probs from [B, 1, vocab] logits (disposes them). */
function rows(logits: tf.Tensor3D): Float32Array[] {
  const V = logits.shape[2];
  const all = tf.tidy(() => tf.logSoftmax(logits).dataSync() as Float32Array);
  logits.dispose();
  return Array.from({ length: all.length / V }, (_, r) => all.slice(r * V, (r + 1) * V));
}

describe('KvCache extend step (wasm)', () => {
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

      it('ragged chunks appended to a left-padded cache give each whole sequence’s logits; a row without a chunk stays untouched', () => {
        const start = tf.memory().numTensors;
        const prompts = [[5, 9, 200], [17, 3, 44, 81, 99, 120, 7], [250, 1]];
        const chunks = [[30, 31, 32, 33, 34], [], [60]];
        const prefill = leftPad(prompts);
        const first = model.forward(prefill, undefined, 'last');
        first.logits.dispose();
        const cache = KvCache.afterPrefill(prefill, first.kv);

        const step = cache.extendStep(chunks);
        const extended = model.forward(step, cache.past, 'last');
        cache.advance(step, extended.kv);
        const got = rows(extended.logits);
        const whole = prompts.map((p, i) => [...p, ...chunks[i]!]);
        const want = aloneLogProbs(model, whole);
        for (const r of [0, 2]) expect(maxAbsDiff(got[r]!, want[r]!)).toBeLessThanOrEqual(1e-5);
        expect(whole.map((_, r) => cache.lengthOf(r))).toEqual(whole.map((s) => s.length));

        // One decode step for every row, the untouched one included.
        const next = [3, 4, 5];
        const decodeStep = cache.nextStep(next);
        const decoded = model.forward(decodeStep, cache.past, 'last');
        cache.advance(decodeStep, decoded.kv);
        const gotNext = rows(decoded.logits);
        const wantNext = aloneLogProbs(model, whole.map((s, i) => [...s, next[i]!]));
        for (const r of [0, 1, 2]) expect(maxAbsDiff(gotNext[r]!, wantNext[r]!)).toBeLessThanOrEqual(1e-5);

        // The longest row leaves: columns that were padding in both other rows are dropped
        // (13 columns, of which rows 0 and 2 are real in the last 9), and decoding goes on exactly.
        expect(cache.columns).toBe(13);
        cache.keepRows([0, 2]);
        expect(cache.columns).toBe(9);
        const last = [6, 7];
        const lastStep = cache.nextStep(last);
        const lastOut = model.forward(lastStep, cache.past, 'last');
        cache.advance(lastStep, lastOut.kv);
        const gotLast = rows(lastOut.logits);
        const wantLast = aloneLogProbs(model, [0, 2].map((r, i) => [...whole[r]!, next[r]!, last[i]!]));
        for (const i of [0, 1]) expect(maxAbsDiff(gotLast[i]!, wantLast[i]!)).toBeLessThanOrEqual(1e-5);
        cache.dispose();
        expect(tf.memory().numTensors).toBe(start);
      });

      it('rows copied out with rowPrefix and assembled into a new batch continue exactly', () => {
        const start = tf.memory().numTensors;
        const prompts = [[8, 7, 6, 5, 4, 3, 2, 1], [100, 101], [42, 43, 44, 45]];
        const prefill = leftPad(prompts);
        const first = model.forward(prefill, undefined, 'last');
        first.logits.dispose();
        const cache = KvCache.afterPrefill(prefill, first.kv);
        // Rows 2 and 0 go into a new batch in that order, with a fresh row (no prefix yet) between.
        const prefixes = [cache.rowPrefix(2), undefined, cache.rowPrefix(0)];
        cache.dispose();
        expect(prefixes[0]![0]!.k.shape[2]).toBe(4);
        const moved = KvCache.assemble(prefixes);
        tf.dispose(prefixes.flatMap((p) => (p ?? []).flatMap((l) => [l.k, l.v])));
        const chunks = [[9, 10], [77, 78, 79], [11]];
        const step = moved.extendStep(chunks);
        const result = model.forward(step, moved.past, 'last');
        moved.advance(step, result.kv);
        const got = rows(result.logits);
        const want = aloneLogProbs(model, [[...prompts[2]!, 9, 10], [77, 78, 79], [...prompts[0]!, 11]]);
        for (const r of [0, 1, 2]) expect(maxAbsDiff(got[r]!, want[r]!)).toBeLessThanOrEqual(1e-5);
        expect([0, 1, 2].map((r) => moved.lengthOf(r))).toEqual([6, 3, 9]);
        moved.dispose();
        expect(tf.memory().numTensors).toBe(start);
      });
    });
  }
});
