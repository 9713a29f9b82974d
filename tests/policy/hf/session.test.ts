/**
 * Issue 36 (item 4, multi-turn): a decoding session keeps each episode's KV cache across turns
 * and reads only the new ids of each turn. Its replies must equal re-encoding the whole
 * conversation at every turn; an episode's replies must not depend on which episodes share its
 * batches; close() frees the cache; the context bounds refuse clearly and change nothing.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { generate } from '../../../policy/hf/generate.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { sequenceLogProbs } from '../../../policy/hf/sequence-log-probs.ts';
import { HfDecodingSession, HfSessionError, type DecideOptions, type Reply } from '../../../policy/hf/session/index.ts';
import { maxAbsDiff, modelDir, TINY_MODELS } from './fixtures.ts';

const GREEDY = { temperature: 0, topP: 1 } as const;

/** Re-encodes the whole conversation at each turn with generate(): the reference a session must equal. */
async function reencoded(model: HfCausalLm, prompt: readonly number[], observations: readonly (readonly number[])[], options: DecideOptions): Promise<Reply[]> {
  const conversation = [...prompt];
  const replies: Reply[] = [];
  for (let turn = 0; turn <= observations.length; turn++) {
    if (turn > 0) conversation.push(...observations[turn - 1]!);
    const [reply] = await generate(model, [{ prompt: conversation, seed: 0 }], options);
    replies.push(reply!);
    conversation.push(...reply!.tokens);
  }
  return replies;
}

function expectSameReplies(mine: readonly Reply[], reference: readonly Reply[], tolerance = 1e-5): void {
  expect(mine.length).toBe(reference.length);
  for (const [i, r] of reference.entries()) {
    expect(mine[i]!.tokens).toEqual(r.tokens);
    expect(mine[i]!.finish).toBe(r.finish);
    expect(maxAbsDiff(mine[i]!.logProbs, r.logProbs)).toBeLessThanOrEqual(tolerance);
  }
}

describe('HF multi-turn decoding session (wasm)', () => {
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

      it('a 3-turn greedy conversation with observations appended to the cache equals re-encoding it at every turn', async () => {
        const prompt = [5, 9, 200, 17, 3];
        const observations = [[33, 44, 55, 66], [7, 8]];
        const options = { ...GREEDY, maxNewTokens: 10 };
        const reference = await reencoded(model, prompt, observations, options);

        const session = new HfDecodingSession(model);
        session.open('a', prompt);
        const replies = [(await session.decide(['a'], options))[0]!];
        for (const obs of observations) {
          session.extend('a', obs);
          replies.push((await session.decide(['a'], options))[0]!);
        }
        expectSameReplies(replies, reference);

        // Token in, token out: the transcript is the conversation, each reply at its place.
        const t = session.transcript('a');
        const conversation = [...prompt, ...reference[0]!.tokens, ...observations[0]!, ...reference[1]!.tokens, ...observations[1]!, ...reference[2]!.tokens];
        expect(t.tokens).toEqual(conversation);
        expect(t.replies.map((r) => conversation.slice(r.start, r.start + r.tokens.length))).toEqual(reference.map((r) => r.tokens));
        // Everything but the last reply token is cached: each turn read only its new ids.
        expect(t.cachedTokens).toBe(conversation.length - 1);
        session.dispose();
      });

      it('sampled replies with a stop id keep log-probs equal to scoring the whole conversation', async () => {
        const prompt = [11, 12, 13, 14];
        const observations = [[90, 91], [120, 121, 122, 123, 124]];
        const probe = await generate(model, [{ prompt, seed: 0 }], { ...GREEDY, maxNewTokens: 6 });
        const stopId = probe[0]!.tokens[2]!;
        const options = { temperature: 1, topP: 0.9, maxNewTokens: 12, stopIds: [stopId] };
        const session = new HfDecodingSession(model);
        session.open('s', prompt, 42);
        const replies = [(await session.decide(['s'], options))[0]!];
        for (const obs of observations) {
          session.extend('s', obs);
          replies.push((await session.decide(['s'], options))[0]!);
        }
        const t = session.transcript('s');
        const [scored] = await sequenceLogProbs(model, [t.tokens]);
        for (const [i, r] of replies.entries()) {
          const start = t.replies[i]!.start;
          expect(r.finish === 'stop' ? r.tokens.at(-1) : undefined).toBe(r.finish === 'stop' ? stopId : undefined);
          expect(maxAbsDiff(r.logProbs, scored!.slice(start - 1, start - 1 + r.tokens.length))).toBeLessThanOrEqual(1e-5);
        }
        session.dispose();
      });

      for (const sampling of [GREEDY, { temperature: 1, topP: 0.9 }]) {
        it(`episodes of different lengths batched together equal each decoded alone (temperature ${sampling.temperature})`, async () => {
          const options = { ...sampling, maxNewTokens: 7 };
          const prompts: Record<string, number[]> = { a: [5, 9], b: [17, 3, 44, 81, 99, 120, 7, 8, 9, 10, 11], c: [250, 1, 2, 3, 4] };
          // Per round: which episodes get which observation, then which are decided (not all every round).
          const rounds: { extend: Record<string, number[]>; decide: string[] }[] = [
            { extend: {}, decide: ['a', 'b', 'c'] },
            { extend: { a: [60, 61, 62, 63, 64, 65, 66], c: [70] }, decide: ['a', 'c'] },
            { extend: { b: [80, 81, 82] }, decide: ['b', 'a'] },
            { extend: { c: [90, 91, 92, 93], b: [100] }, decide: ['c', 'b', 'a'] },
          ];
          const batched = new HfDecodingSession(model);
          for (const [i, id] of Object.keys(prompts).entries()) batched.open(id, prompts[id]!, 7 + i);
          const together: Record<string, Reply[]> = { a: [], b: [], c: [] };
          for (const round of rounds) {
            for (const [id, ids] of Object.entries(round.extend)) batched.extend(id, ids);
            const replies = await batched.decide(round.decide, options);
            round.decide.forEach((id, i) => together[id]!.push(replies[i]!));
          }
          for (const [i, id] of Object.keys(prompts).entries()) {
            const alone = new HfDecodingSession(model);
            alone.open(id, prompts[id]!, 7 + i);
            const mine: Reply[] = [];
            for (const round of rounds) {
              const obs = round.extend[id];
              if (obs !== undefined) alone.extend(id, obs);
              if (round.decide.includes(id)) mine.push((await alone.decide([id], options))[0]!);
            }
            expectSameReplies(together[id]!, mine);
            expect(batched.transcript(id).tokens).toEqual(alone.transcript(id).tokens);
            alone.dispose();
          }
          batched.dispose();
        });
      }
    });
  }

  describe('resources and bounds (qwen2-tiny)', () => {
    let model: HfCausalLm;
    beforeAll(async () => {
      model = (await loadHfModel(modelDir('qwen2-tiny'))).model;
    });
    afterAll(() => model.dispose());
    const options = { ...GREEDY, maxNewTokens: 5 };

    it('an open episode holds its cache tensors and close() frees them', async () => {
      const start = tf.memory().numTensors;
      const session = new HfDecodingSession(model);
      session.open('a', [1, 2, 3]);
      session.open('b', [4, 5, 6, 7, 8]);
      await session.decide(['a', 'b'], options);
      session.extend('a', [9, 10]);
      await session.decide(['a'], options);
      // Keys and values per layer per open episode, nothing else.
      expect(tf.memory().numTensors - start).toBe(2 * 2 * model.config.numLayers);
      session.close('a');
      expect(tf.memory().numTensors - start).toBe(2 * model.config.numLayers);
      session.close('b');
      expect(tf.memory().numTensors).toBe(start);
      expect(() => session.extend('a', [1])).toThrow(/episode a: is not open/);
    });

    it('refuses past the context window or max_position_embeddings, naming the episode and the bound, and changes nothing', async () => {
      const session = new HfDecodingSession(model, { contextWindow: 20 });
      session.open('a', Array.from({ length: 10 }, (_, i) => i + 1));
      await session.decide(['a'], options); // 15 tokens
      const before = session.transcript('a');
      expect(() => session.extend('a', [1, 2, 3, 4, 5, 6])).toThrow(/episode a: 6 more tokens would take it to 21 tokens, past the context window 20/);
      session.extend('a', [1, 2, 3]); // 18
      await expect(session.decide(['a'], options)).rejects.toThrow(/episode a: a reply of up to 5 tokens would take it to 23 tokens, past the context window 20/);
      expect(session.transcript('a').tokens).toEqual([...before.tokens, 1, 2, 3]);
      const [reply] = await session.decide(['a'], { ...options, maxNewTokens: 2 });
      expect(reply!.tokens.length).toBe(2);
      session.dispose();

      const wide = new HfDecodingSession(model, { contextWindow: 10_000 });
      expect(wide.contextWindow).toBe(model.config.maxPositionEmbeddings);
      wide.open('long', Array.from({ length: 250 }, (_, i) => i));
      const error = await wide.decide(['long'], { ...GREEDY, maxNewTokens: 10 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HfSessionError);
      expect((error as HfSessionError).code).toBe('SESSION_CONTEXT_FULL');
      expect((error as HfSessionError).message).toMatch(/past max_position_embeddings 256/);
      wide.dispose();
    });

    it('a decode that fails midway leaves the episode consistent: its next decide re-reads the conversation and equals re-encoding', async () => {
      const start = tf.memory().numTensors;
      let failAt = -1;
      let calls = 0;
      // The model with a forward that throws on its `failAt`-th call.
      const flaky = Object.create(model) as HfCausalLm;
      flaky.forward = (...args) => {
        if (calls++ === failAt) throw new Error('injected failure');
        return model.forward(...args);
      };
      const session = new HfDecodingSession(flaky);
      session.open('a', [5, 9, 200, 17]);
      session.open('b', [1, 2]);
      await session.decide(['a', 'b'], options);
      session.extend('a', [33, 44]);
      const held = session.transcript('a');
      calls = 0;
      failAt = 2; // the extend forward and one decode step succeed, the next throws
      await expect(session.decide(['a'], options)).rejects.toThrow(/injected failure/);
      failAt = -1;
      expect(session.transcript('a').tokens).toEqual(held.tokens);
      expect(session.transcript('a').replies.length).toBe(1);
      // Only b's cache is held: a's was freed with the failed batch.
      expect(tf.memory().numTensors - start).toBe(2 * model.config.numLayers);
      const [again] = await session.decide(['a'], options);
      const [reference] = await generate(model, [{ prompt: held.tokens, seed: 0 }], options);
      expectSameReplies([again!], [reference!]);
      session.dispose();
      expect(tf.memory().numTensors).toBe(start);
    });

    it('refuses past maxCachedTokens over all episodes, a duplicate or busy episode, and an unknown one', async () => {
      const start = tf.memory().numTensors;
      const session = new HfDecodingSession(model, { maxCachedTokens: 12 });
      session.open('a', [1, 2, 3]);
      expect(() => session.open('a', [1])).toThrow(/already open/);
      expect(() => session.open('b', Array.from({ length: 10 }, (_, i) => i))).toThrow(/past maxCachedTokens 12/);
      await expect(session.decide(['a', 'a'], options)).rejects.toThrow(/listed twice/);
      await expect(session.decide(['zzz'], options)).rejects.toThrow(/episode zzz: is not open/);
      const first = session.decide(['a'], options);
      await expect(session.decide(['a'], options)).rejects.toThrow(/episode a: is already being decided/);
      await first;
      // Bad sampling options are refused before the episode's cache is touched.
      const cached = session.transcript('a').cachedTokens;
      expect(cached).toBe(3 + 5 - 1);
      await expect(session.decide(['a'], { ...options, topP: 0 })).rejects.toThrow(/topP in \(0, 1\]/);
      expect(session.transcript('a').cachedTokens).toBe(cached);
      session.dispose();
      expect(tf.memory().numTensors).toBe(start);
    });
  });
});
