import { describe, expect, it } from 'vitest';
import { sampleToken } from '../../policy/sampling.ts';
import { mixSeed, mulberry32, turnRng } from '../../policy/rng.ts';
import { ActionTrie, FreeFormDecoder } from '../../policy/action-trie.ts';
import { END_ACT_ID, NUM_SPECIAL } from '../../policy/special-tokens.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';

const logits = Float32Array.from([2, 1, 0.5, -1, 3, 0]);
const logSoftmax = (z: Float32Array, t = 1): number[] => {
  const s = Array.from(z, (x) => x / t);
  const m = Math.max(...s);
  const lz = m + Math.log(s.reduce((a, x) => a + Math.exp(x - m), 0));
  return s.map((x) => x - lz);
};

describe('rng', () => {
  it('is deterministic per seed and spreads over [0, 1)', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const xs = Array.from({ length: 1000 }, () => a.next());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b.next()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(Math.abs(xs.reduce((s, x) => s + x, 0) / 1000 - 0.5)).toBeLessThan(0.05);
    expect(mixSeed(1, 2)).not.toBe(mixSeed(2, 1));
    expect(turnRng(5, 3).next()).toBe(turnRng(5, 3).next());
  });
});

describe('sampleToken', () => {
  it('returns the full-vocabulary log-prob at the sampling temperature, whatever the mask or top-p', () => {
    const rng = mulberry32(1);
    for (const [temperature, topP, allowed] of [[1, 1, undefined], [0.7, 0.9, undefined], [1, 0.5, [1, 2, 3]], [2, 1, [0, 5]]] as const) {
      for (let i = 0; i < 50; i++) {
        const s = sampleToken(logits, rng, { temperature, topP }, allowed);
        expect(s.logProb).toBeCloseTo(logSoftmax(logits, temperature)[s.token]!, 5);
        if (allowed !== undefined) expect(allowed).toContain(s.token);
      }
    }
  });

  it('matches the softmax frequencies at temperature 1, top-p 1', () => {
    const rng = mulberry32(2);
    const counts = new Array<number>(6).fill(0);
    const n = 20000;
    for (let i = 0; i < n; i++) counts[sampleToken(logits, rng, { temperature: 1, topP: 1 }).token]!++;
    logSoftmax(logits).forEach((lp, i) => expect(Math.abs(counts[i]! / n - Math.exp(lp))).toBeLessThan(0.015));
  });

  it('top-p keeps only the nucleus; temperature 0 is greedy', () => {
    const rng = mulberry32(3);
    // Probabilities: token 4 ≈ 0.58, token 0 ≈ 0.21; the 0.6 nucleus is {4, 0}.
    for (let i = 0; i < 200; i++) expect([4, 0]).toContain(sampleToken(logits, rng, { temperature: 1, topP: 0.6 }).token);
    expect(sampleToken(logits, rng, { temperature: 0, topP: 1 }).token).toBe(4);
    expect(sampleToken(logits, rng, { temperature: 0, topP: 1 }, [1, 2]).token).toBe(1);
  });
});

describe('action decoders', () => {
  const tok = Tokenizer.fromCorpus(['go to the red ball', 'go to the red box', 'pick up the key', 'go forward'], { maxVocab: 150, minCount: 1 });

  it('a trie walk can only spell an available action', () => {
    const actions = ['go to the red ball', 'go to the red box', 'go forward', 'toggle'];
    const trie = new ActionTrie(actions, (t) => tok.encode(t));
    const rng = mulberry32(4);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const d = trie.decoder();
      let steps = 0;
      while (!d.done) {
        const allowed = d.allowed()!;
        d.advance(allowed[Math.floor(rng.next() * allowed.length)]!);
        steps++;
      }
      expect(steps).toBeLessThanOrEqual(trie.depth);
      seen.add(d.action(() => ''));
    }
    expect([...seen].sort()).toEqual([...actions].sort());
  });

  it('free-form allows ordinary tokens and </act>, and forces </act> at the cap', () => {
    const d = new FreeFormDecoder(tok.vocabSize, 3);
    expect(d.allowed()).toContain(END_ACT_ID);
    expect(d.allowed()!.every((id) => id === END_ACT_ID || id >= NUM_SPECIAL)).toBe(true);
    d.advance(tok.encode('go')[0]!);
    d.advance(tok.encode(' forward')[0]!);
    expect(d.allowed()).toEqual([END_ACT_ID]);
    d.advance(END_ACT_ID);
    expect(d.done).toBe(true);
    expect(d.action((ids) => tok.decode(ids))).toBe('go forward');
  });
});
