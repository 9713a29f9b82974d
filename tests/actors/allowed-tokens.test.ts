import { describe, expect, it } from 'vitest';
import { AllowedTokensBuilder } from '../../actors/learner/allowed-tokens.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { END_ACT_ID } from '../../policy/special-tokens.ts';
import { actionEncoder } from '../../policy/action-words.ts';

const tokenizer = Tokenizer.fromCorpus(['turn left', 'turn right', 'go to red ball', 'turn left'], { maxVocab: 160, minCount: 1 });
const enc = (s: string) => tokenizer.encode(s);

describe('allowed tokens (actors/learner/allowed-tokens.ts)', () => {
  it('walks each turn\'s action trie along the sampled tokens; turns continue across windows', () => {
    const builder = new AllowedTokensBuilder(enc);
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
    const builder = new AllowedTokensBuilder(reversed);
    const sampled = [...enc('ball red to go'), END_ACT_ID];
    const w = { tokens: [7, ...sampled], mask: [0, ...sampled.map(() => 1)], logProbs: [] };
    const [allowed] = builder.forEpisode([w], [['turn left', 'turn right', 'go to red ball']]);
    // First word: the last word of each action ("left", "right", "ball").
    expect([...allowed![1]!].sort()).toEqual([enc('left')[0], enc('right')[0], enc('ball')[0]].sort());
    sampled.forEach((token, t) => expect(allowed![t + 1]).toContain(token));
    // The as-written tries do not contain these tokens: the encodings must match.
    expect(() => new AllowedTokensBuilder(enc).forEpisode([w], [['turn left', 'turn right', 'go to red ball']])).toThrow(/not an allowed continuation/);
  });

  it('leaves unconstrained turns (no action list) undefined', () => {
    const builder = new AllowedTokensBuilder(enc);
    const w = { tokens: [7, 9, END_ACT_ID], mask: [0, 1, 1], logProbs: [] };
    expect(builder.forEpisode([w], [undefined])).toEqual([[undefined, undefined, undefined]]);
  });
});
