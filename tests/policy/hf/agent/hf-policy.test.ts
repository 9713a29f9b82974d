/**
 * Issue 36 (items 4 and 7): HfPolicy plays an env's conversation with a Hugging Face model. Its
 * record is token-exact (forced replies give encodeEpisode's ids, which are the chat template's
 * render), requests decided together give what each gives alone, release hands back the
 * conversation with mask 1 on sampled ids only, a cut reply is parsed and the model told of its
 * format error, a full context and setModel with open episodes are refused clearly.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../../../policy/backend.ts';
import type { HfCausalLm } from '../../../../policy/hf/causal-lm.ts';
import { loadHfModel } from '../../../../policy/hf/load-hf-model.ts';
import { loadHfTokenizer, type HfTokenizer } from '../../../../policy/hf/tokenizer/index.ts';
import { encodeEpisode, HfPolicy, HfPolicyError, type HfPolicyOptions } from '../../../../policy/hf/agent/index.ts';
import type { ActRequest, Decision } from '../../../../policy/policy.ts';
import { babyai, CHAT_MODELS, chatDir, ForcedLm, TURNS } from './support.ts';

const request = (episodeId: string, turn: number, seed: number, t = TURNS[turn]!): ActRequest => ({
  episodeId,
  turn,
  seed,
  observation: t.observation,
  ...(t.availableActions !== undefined ? { availableActions: t.availableActions } : {}),
});

describe.each(CHAT_MODELS)('HfPolicy on %s', (name) => {
  // Token-exactness and batching on both architectures; the rest does not depend on it (time).
  const everything = name === CHAT_MODELS[0];
  let model: HfCausalLm;
  let tokenizer: HfTokenizer;
  const prompt = babyai();
  const make = (options: Partial<HfPolicyOptions> = {}): HfPolicy => new HfPolicy({ model, tokenizer, prompt, name: `hf:${name}`, maxNewTokens: 12, ...options });

  beforeAll(async () => {
    await selectBackend('wasm');
    model = (await loadHfModel(chatDir(name))).model;
    tokenizer = loadHfTokenizer(chatDir(name), { vocabSize: model.config.vocabSize });
  });
  afterAll(() => model.dispose());

  it('holds exactly the ids of the rendered conversation when the model says the planned replies', async () => {
    const planned = encodeEpisode(tokenizer, prompt, TURNS);
    const policy = make({ model: new ForcedLm(model, planned.tokens), maxNewTokens: 64 });
    const decisions: Decision[] = [];
    for (const turn of TURNS.keys()) decisions.push(...(await policy.act([request('e', turn, 7)])));
    const unparsable = prompt.parseReply(TURNS[1]!.reply) as { ok: false; envAction: string };
    expect(unparsable.ok).toBe(false);
    expect(decisions.map((d) => d.action)).toEqual(['move forward', unparsable.envAction, 'go to red ball 1']);
    expect(decisions.map((d) => d.usage?.formatError)).toEqual([undefined, 'no_action', undefined]);
    expect(decisions.map((d) => d.usage?.reply)).toEqual(TURNS.map((t) => t.reply));
    for (const d of decisions) for (const lp of d.logProbs!) expect(lp).toBeCloseTo(0, 5);
    const record = policy.release('e')!;
    expect(record.tokens).toEqual(planned.tokens);
    expect(record.mask).toEqual(planned.mask);
    expect(record.logProbs.filter((_, i) => record.mask[i] === 0).every((lp) => lp === 0)).toBe(true);
    policy.dispose();
  });

  it('decides two episodes in one batch as it decides each alone, with the same seeds', async () => {
    const together = make();
    const alone = [make(), make()];
    for (const turn of TURNS.keys()) {
      const both = await together.act([request('a', turn, 11), request('b', turn, 12)]);
      const a = await alone[0]!.act([request('a', turn, 11)]);
      const b = await alone[1]!.act([request('b', turn, 12)]);
      for (const [x, y] of [[both[0]!, a[0]!], [both[1]!, b[0]!]] as const) {
        expect(x.tokenIds).toEqual(y.tokenIds);
        expect(x.action).toBe(y.action);
        x.logProbs!.forEach((lp, i) => expect(lp).toBeCloseTo(y.logProbs![i]!, 4));
      }
    }
    expect(together.release('a')!.tokens).toEqual(alone[0]!.release('a')!.tokens);
    // Different seeds, different replies.
    expect(together.release('b')!.tokens).not.toEqual(alone[0]!.release('a')?.tokens ?? []);
    for (const p of [together, ...alone]) p.dispose();
  });

  it.runIf(everything)('releases the whole conversation with mask and log-probs on the sampled ids only', async () => {
    const policy = make();
    const decisions: Decision[] = [];
    for (const turn of TURNS.keys()) decisions.push(...(await policy.act([request('e', turn, 3)])));
    const record = policy.release('e')!;
    const sampled = record.tokens.filter((_, i) => record.mask[i] === 1);
    expect(sampled).toEqual(decisions.flatMap((d) => d.tokenIds!));
    expect(record.logProbs.filter((_, i) => record.mask[i] === 1)).toEqual(decisions.flatMap((d) => d.logProbs!));
    expect(record.logProbs.filter((_, i) => record.mask[i] === 0).every((lp) => lp === 0)).toBe(true);
    // The opening is the chat template's render of the first turn.
    const opening = tokenizer.encodeChat([{ role: 'user', content: prompt.firstTurn(TURNS[0]!.observation) }], { addGenerationPrompt: true });
    expect(record.tokens.slice(0, opening.length)).toEqual(opening);
    expect(record.mask.slice(0, opening.length).every((bit) => bit === 0)).toBe(true);
    expect(record.windows).toBeUndefined();
    expect(policy.release('e')).toBeUndefined();
    expect(policy.release('never')).toBeUndefined();
    policy.dispose();
  });

  it.runIf(everything)('parses a reply cut by maxNewTokens as it is, closes it with the template\'s end-of-turn id and tells the model its format error', async () => {
    const policy = make({ maxNewTokens: 4 });
    const [first] = await policy.act([request('e', 0, 5)]);
    // A random model does not stop within 4 tokens (no stop id among them).
    expect(first!.tokenIds).toHaveLength(4);
    expect(tokenizer.stopIds.some((id) => first!.tokenIds!.includes(id))).toBe(false);
    const parsed = prompt.parseReply(first!.usage!.reply);
    expect(parsed.ok).toBe(false);
    expect(first!.action).toBe((parsed as { envAction: string }).envAction);
    expect(first!.usage!.formatError).toBe((parsed as { error: string }).error);
    await policy.act([request('e', 1, 5)]);
    const record = policy.release('e')!;
    const end = record.mask.lastIndexOf(1, record.mask.indexOf(0, record.mask.indexOf(1)) - 1) + 1;
    expect(tokenizer.decode([record.tokens[end]!])).toBe('<|im_end|>');
    expect(record.mask[end]).toBe(0);
    expect(tokenizer.decode(record.tokens)).toContain((parsed as { message: string }).message);
    policy.dispose();
  });

  it.runIf(everything)('ends an episode whose next turn would pass the context window, and decides the rest of its batch', async () => {
    const opening = encodeEpisode(tokenizer, prompt, [TURNS[0]!]).tokens.length;
    const policy = make({ contextWindow: opening + 20, maxNewTokens: 12 });
    await policy.act([request('e', 0, 1)]);
    const [full, other] = await policy.act([request('e', 1, 1), request('f', 0, 2)]);
    expect(full!.exhausted).toMatch(/^context full: \d+ tokens held, \d+ of the new turn and a reply of up to 12 pass the context window of \d+ tokens/);
    expect(full!.tokenIds).toBeUndefined();
    expect(other!.exhausted).toBeUndefined();
    expect(other!.tokenIds!.length).toBeGreaterThan(0);
    // The exhausted episode's record holds the turn it played, nothing of the turn it could not read.
    const record = policy.release('e')!;
    expect(record.tokens.length).toBeLessThanOrEqual(opening + 12);
    expect(record.mask.filter((m) => m === 1).length).toBeGreaterThan(0);
    policy.dispose();
  });

  it.runIf(everything)('swaps weights only while no episode is open', async () => {
    const policy = make({ version: 3 });
    expect(policy.version).toBe(3);
    await policy.act([request('e', 0, 1)]);
    const other = new ForcedLm(model, new Array<number>(4096).fill(2));
    expect(() => policy.setModel(other, 4)).toThrow(/HF_POLICY_EPISODES_OPEN: setModel with 1 episode\(s\) open \(e\)/);
    policy.release('e');
    policy.setModel(other, 4);
    expect(policy.version).toBe(4);
    expect(policy.model).toBe(other);
    // The new weights decide: the forced model answers <|im_end|> (a stop id) at once.
    const [d] = await policy.act([request('f', 0, 1)]);
    expect(d!.tokenIds).toEqual([2]);
    policy.dispose();
  });

  it.runIf(everything)('releases an episode whose batch is being decided once the batch ends', async () => {
    const policy = make();
    const before = tf.memory().numTensors;
    const pending = policy.act([request('a', 0, 1), request('b', 0, 2)]);
    const record = policy.release('a')!;
    expect(record.mask.every((bit) => bit === 0)).toBe(true);
    expect(policy.openEpisodes).toEqual(['b']);
    expect(await pending).toHaveLength(2);
    policy.release('b');
    expect(policy.openEpisodes).toEqual([]);
    expect(tf.memory().numTensors).toBe(before);
    policy.setModel(model, 1);
  });

  it.runIf(everything)('frees every cache tensor on release and dispose', async () => {
    const policy = make();
    const before = tf.memory().numTensors;
    await policy.act([request('a', 0, 1), request('b', 0, 2)]);
    expect(tf.memory().numTensors).toBeGreaterThan(before);
    policy.release('a');
    policy.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it.runIf(everything)('refuses a later turn of an episode it never opened, and counts the failed call', async () => {
    const policy = make();
    await expect(policy.act([request('x', 1, 1)])).rejects.toThrow(/HF_POLICY_UNKNOWN_EPISODE: episode x asks for turn 1/);
    expect(policy.usage()).toMatchObject({ calls: 1, failedCalls: 1, completionTokens: 0 });
  });

  it.runIf(everything)('counts its decisions and tokens as an LLM agent does', async () => {
    const policy = make();
    const decisions = await policy.act([request('a', 0, 1), request('b', 0, 2)]);
    const opening = tokenizer.encodeChat([{ role: 'user', content: prompt.firstTurn(TURNS[0]!.observation) }], { addGenerationPrompt: true }).length;
    expect(policy.usage()).toMatchObject({
      calls: 2,
      failedCalls: 0,
      retries: 0,
      promptTokens: 2 * opening,
      completionTokens: decisions[0]!.tokenIds!.length + decisions[1]!.tokenIds!.length,
      maxInFlight: 2,
    });
    policy.dispose();
  });
});
