import { describe, expect, it } from 'vitest';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { ACT_ID, BOS_ID, END_ACT_ID, NUM_SPECIAL, UNK_ID } from '../../policy/special-tokens.ts';

const corpus = [
  'You are in the kitchen. There is a red ball 2 steps to the left.',
  'go to the red ball', 'pick up the red ball', 'go to the kitchen', 'craft 4 oak planks using 1 oak logs',
  'Crafting commands:\n  craft 4 oak planks using 1 oak logs', 'You see a red ball.',
];

describe('Tokenizer', () => {
  const tok = Tokenizer.fromCorpus(corpus, { maxVocab: 200, minCount: 2 });

  it('maps frequent words (with their leading space) to single ids', () => {
    const ids = tok.encode('go to the red ball');
    expect(ids).toHaveLength(5);
    expect(ids.every((id) => id >= NUM_SPECIAL)).toBe(true);
    expect(tok.id(' red')).toBeDefined();
  });

  it('round-trips any text, spelling unknown words by characters', () => {
    for (const text of [
      'go to the xylophone', '  Two  spaces,\tand a TAB!\n\nNew lines; 12345 + 3.14 = ?', 'ZEBRA zebra Zebra', '', ' leading', 'trailing ',
      '(nested [brackets] {braces}) "quotes" \'single\'',
    ]) {
      expect(tok.decode(tok.encode(text))).toBe(text);
    }
    const unknown = tok.encode(' xylophone');
    expect(unknown.length).toBe(1 + 'xylophone'.length);
  });

  it('treats numbers as words and is case-sensitive', () => {
    expect(tok.encode(' 4')).toHaveLength(1);
    expect(tok.encode('go')).not.toEqual(tok.encode('Go'));
    expect(tok.decode(tok.encode('GO TO'))).toBe('GO TO');
  });

  it('maps characters outside the vocabulary to <unk> (the only lossy case)', () => {
    expect(tok.encode('☃')).toEqual([UNK_ID]);
  });

  it('does not let text inject special tokens unless asked', () => {
    const plain = tok.encode('<bos>go</act>');
    expect(plain).not.toContain(BOS_ID);
    expect(plain).not.toContain(END_ACT_ID);
    expect(tok.decode(plain)).toBe('<bos>go</act>');
    const special = tok.encode('<bos>go to<act> the red ball</act>', { allowSpecial: true });
    expect(special[0]).toBe(BOS_ID);
    expect(special).toContain(ACT_ID);
    expect(special[special.length - 1]).toBe(END_ACT_ID);
    expect(tok.decode(special)).toBe('<bos>go to<act> the red ball</act>');
    expect(tok.decode(special, { skipSpecial: true })).toBe('go to the red ball');
  });

  it('saves and loads through JSON', () => {
    const again = Tokenizer.fromJSON(JSON.parse(JSON.stringify(tok.toJSON())));
    expect(again.vocabSize).toBe(tok.vocabSize);
    const text = 'You see a purple ball 7 steps away.';
    expect(again.encode(text)).toEqual(tok.encode(text));
    expect(() => Tokenizer.fromJSON({ ...tok.toJSON(), vocab: ['x', ...tok.toJSON().vocab.slice(1)] })).toThrow(/<pad>/);
  });

  it('respects maxVocab and is deterministic', () => {
    const small = Tokenizer.fromCorpus(corpus, { maxVocab: 110 });
    expect(small.vocabSize).toBeLessThanOrEqual(110);
    expect(Tokenizer.fromCorpus(corpus, { maxVocab: 110 }).toJSON()).toEqual(small.toJSON());
    expect(() => Tokenizer.fromCorpus(corpus, { maxVocab: 20 })).toThrow(/maxVocab/);
  });
});
