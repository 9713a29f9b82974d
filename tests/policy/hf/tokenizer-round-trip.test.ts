/**
 * Issue 36: decode(encode(x)) gives x back — exactly for Llama 3's tokenizer, and x in Unicode
 * NFC for Qwen's, whose tokenizer.json normalises to NFC, and exactly for the fixtures' tiny BPE —
 * on the fixture corpus and on seeded
 * random strings over all of Unicode.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type HfTokenizer, loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { TOKENIZER_DIRS, corpus } from './tokenizer-fixtures.ts';

const strings = corpus();
const expected = { qwen3: (s: string) => s.normalize('NFC'), llama3: (s: string) => s, tiny: (s: string) => s } as const;

describe.each(['qwen3', 'llama3', 'tiny'] as const)('%s decode(encode(x))', (name) => {
  let tok: HfTokenizer;
  beforeAll(() => {
    tok = loadHfTokenizer(TOKENIZER_DIRS[name]);
  });

  it('gives back every corpus string', () => {
    const broken = strings.filter((s) => tok.decode(tok.encode(s.text, { addSpecialTokens: false })) !== expected[name](s.text));
    expect(broken.map((s) => s.text.slice(0, 60))).toEqual([]);
  });

  it('gives back random unicode strings (seeded)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (text) => {
        expect(tok.decode(tok.encode(text, { addSpecialTokens: false }))).toBe(expected[name](text));
      }),
      { seed: 36, numRuns: 400 },
    );
  });

  it('drops the special tokens it added when asked to skip them', () => {
    const text = 'go to the red ball';
    const ids = tok.encode(text, { addSpecialTokens: true });
    expect(tok.decode(ids, { skipSpecialTokens: true })).toBe(text);
  });

  it('decodes no ids to the empty string', () => {
    expect(tok.decode([])).toBe('');
  });
});

it('Llama 3 adds its BOS only when special tokens are asked for (issue 36)', () => {
  const tok = loadHfTokenizer(TOKENIZER_DIRS.llama3);
  const bos = tok.tokenToId('<|begin_of_text|>');
  expect(bos).toBe(128000);
  const plain = tok.encode('hello', { addSpecialTokens: false });
  expect(tok.encode('hello', { addSpecialTokens: true })).toEqual([bos, ...plain]);
});
