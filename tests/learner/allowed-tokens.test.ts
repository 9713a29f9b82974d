import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { AllowedTokensBuilder } from '../../learner/allowed-tokens.ts';
import { padRows } from '../../learner/minibatch.ts';
import { scoreRows } from '../../learner/score.ts';
import type { ActionDecoding } from '../../policy/action-trie.ts';
import { actionEncoder } from '../../policy/action-words.ts';
import { selectBackend } from '../../policy/backend.ts';
import type { TokenTrajectory } from '../../policy/policy.ts';
import type { SampledToken } from '../../policy/sampling.ts';
import { END_ACT_ID, NUM_SPECIAL } from '../../policy/special-tokens.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { constrainedLogProbsOf } from '../../policy/transformer/constrained-log-probs.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';

// Every token the policy samples, in order, with the sampler's own numbers.
const sampled = vi.hoisted(() => [] as SampledToken[]);
vi.mock('../../policy/sampling.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../policy/sampling.ts')>();
  return {
    ...real,
    sampleToken: (...args: Parameters<typeof real.sampleToken>): SampledToken => {
      const drawn = real.sampleToken(...args);
      sampled.push(drawn);
      return drawn;
    },
  };
});

const tokenizer = Tokenizer.fromCorpus(['turn left', 'turn right', 'go to red ball', 'turn left'], { maxVocab: 160, minCount: 1 });
const enc = (s: string) => tokenizer.encode(s);
const decoding = (encode = enc, maxActionTokens = 24): ActionDecoding => ({ constrained: true, encode, vocabSize: tokenizer.vocabSize, maxActionTokens });

describe('allowed tokens (learner/allowed-tokens.ts)', () => {
  it('walks each turn\'s action trie along the sampled tokens; turns continue across windows', () => {
    const builder = new AllowedTokensBuilder(decoding());
    const turnLeft = [...enc('turn left'), END_ACT_ID];
    const goTo = [...enc('go to red ball'), END_ACT_ID];
    // Window 1: [obs, turn left </act>], window 2: [obs, go to red ball </act>].
    const w1 = { tokens: [7, ...turnLeft], mask: [0, ...turnLeft.map(() => 1)], logProbs: [] };
    const w2 = { tokens: [7, 8, ...goTo], mask: [0, 0, ...goTo.map(() => 1)], logProbs: [] };
    const [a1, a2] = builder.forEpisode([w1, w2], [['turn left', 'turn right', 'go to red ball'], ['go to red ball']]);
    expect(a1![0]).toBeUndefined();
    expect([...a1![1]!].sort()).toEqual([enc('turn')[0], enc('go')[0]].sort());
    expect([...a1![2]!].sort()).toEqual([enc(' left')[0], enc(' right')[0]].sort());
    expect(a1![3]).toEqual([END_ACT_ID]);
    // Turn 1 had a single action: one allowed token at each position.
    expect(a2!.slice(2).map((ids) => ids!.length)).toEqual(goTo.map(() => 1));
  });

  it('walks the tries of the policy\'s action encoding: reversed words', () => {
    const reversed = actionEncoder(enc, 'reversed');
    const builder = new AllowedTokensBuilder(decoding(reversed));
    const sampledIds = [...enc('ball red to go'), END_ACT_ID];
    const w = { tokens: [7, ...sampledIds], mask: [0, ...sampledIds.map(() => 1)], logProbs: [] };
    const [allowed] = builder.forEpisode([w], [['turn left', 'turn right', 'go to red ball']]);
    // First word: the last word of each action ("left", "right", "ball").
    expect([...allowed![1]!].sort()).toEqual([enc('left')[0], enc('right')[0], enc('ball')[0]].sort());
    sampledIds.forEach((token, t) => expect(allowed![t + 1]).toContain(token));
    // The as-written tries do not contain these tokens: the encodings must match.
    expect(() => new AllowedTokensBuilder(decoding()).forEpisode([w], [['turn left', 'turn right', 'go to red ball']])).toThrow(/not an allowed continuation/);
  });

  it('a turn with no action list gets the free-form sets: ordinary tokens and </act>, only </act> at the cap', () => {
    const builder = new AllowedTokensBuilder(decoding(enc, 3));
    const ordinary = [END_ACT_ID, ...Array.from({ length: tokenizer.vocabSize - NUM_SPECIAL }, (_, i) => NUM_SPECIAL + i)];
    const w = { tokens: [7, 9, 10, END_ACT_ID, 7, 9, END_ACT_ID], mask: [0, 1, 1, 1, 0, 1, 1], logProbs: [] };
    const [allowed] = builder.forEpisode([w], [undefined, []]);
    expect(allowed![0]).toBeUndefined();
    expect(allowed![1]).toEqual(ordinary);
    expect(allowed![2]).toEqual(ordinary);
    expect(allowed![3]).toEqual([END_ACT_ID]); // the cap of 3 tokens: forced
    expect(allowed![5]).toEqual(ordinary);
    expect(allowed![6]).toEqual(ordinary);
    // A token the sampler could not have drawn is an error, not a silent −1e9 log-prob.
    const special = { tokens: [7, 1, END_ACT_ID], mask: [0, 1, 1], logProbs: [] };
    expect(() => builder.forEpisode([special], [undefined])).toThrow(/token 1 is not an allowed continuation/);
  });
});

// Issue 24, finding 7: "Free-form actions are scored on another distribution than they were
// sampled from: the sampler excludes the special tokens and forces </act> at the 24-token cap;
// the learner scores those positions over the full vocabulary (forced tokens scored at log-prob
// ≈ −6.2 and trained)". Actions are sampled by the real policy and scored by the learner's path.
describe('the learner scores exactly what the sampler drew from (issue 24, finding 7)', () => {
  const ACTIONS = ['turn left', 'turn right', 'go to red ball'];
  let model: Transformer;
  beforeAll(async () => {
    await selectBackend('cpu');
    // Room for ids the tokenizer never produces: the sampler never draws them, so the learner must not score them.
    model = new Transformer({ vocabSize: tokenizer.vocabSize + 5, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 }, { seed: 4 });
  });

  it.each([1, 0.7])('free-form and listed turns, temperature %s: equal log-probs at every agent position, 0 and no gradient where forced', async (temperature) => {
    const policy = new TransformerPolicy(model, tokenizer, { temperature });
    const turns = [undefined, ACTIONS, undefined, undefined];
    sampled.length = 0;
    for (const [turn, actions] of turns.entries()) {
      await policy.act([{ episodeId: 'e', turn, observation: 'you see a red ball', seed: 21, ...(actions ? { availableActions: actions } : {}) }]);
    }
    const record = policy.release('e')!;
    const windows: readonly TokenTrajectory[] = record.windows.length > 0 ? record.windows : [record];

    // The learner's path: the allowed sets from the policy's decoding, then constrained scoring.
    const allowed = new AllowedTokensBuilder(policy.actionDecoding).forEpisode(windows, turns);
    const rows = windows.map((w, i) => ({ tokens: [...w.tokens], allowed: allowed[i]! }));
    const scores = await scoreRows(model, rows, { temperature, constrained: true });

    const agent = windows.flatMap((w, i) => w.mask.flatMap((m, t) => (m === 1 ? [[i, t] as const] : [])));
    expect(agent).toHaveLength(sampled.length);
    agent.forEach(([i, t], k) => expect(scores.logProbs[i]![t], `agent token ${k} (${allowed[i]![t]?.length} allowed)`).toBeCloseTo(sampled[k]!.sampledLogProb, 4));
    const forced = agent.filter(([i, t]) => allowed[i]![t]?.length === 1);
    // An untrained model rarely picks </act>: free-form actions run to the cap, where </act> is forced.
    expect(forced.length).toBeGreaterThan(0);
    for (const [i, t] of forced) expect(scores.logProbs[i]![t]).toBe(0);

    // No gradient flows from a forced position; one from a free choice does.
    const gradient = (i: number, t: number): number => {
      const padded = padRows([rows[i]!]);
      const { value, grads } = tf.variableGrads(() => {
        const s = constrainedLogProbsOf(model.params, model.config, padded.tokens(), padded.bias(model.config.vocabSize), temperature);
        return tf.sum(tf.slice(s.logProbs, [0, t], [1, 1])) as tf.Scalar;
      }, Object.values(model.params) as tf.Variable[]);
      const norm = tf.tidy(() => tf.addN(Object.values(grads).map((g) => tf.sum(tf.abs(g)))).dataSync()[0]!);
      tf.dispose([value, ...Object.values(grads)]);
      return norm;
    };
    expect(gradient(...forced[0]!)).toBe(0);
    const free = agent.find(([i, t]) => allowed[i]![t]!.length > 1)!;
    expect(gradient(...free)).toBeGreaterThan(0);
  });
});
