/**
 * The tokenizer's size (largest id + 1, added tokens included) and the check that it fits the
 * model: an id at or past config.json's `vocab_size` has no embedding row, so such a tokenizer is
 * refused before any text is encoded. A model may have more rows than tokens (Qwen pads its
 * embedding to 151,936 for 151,669 tokens); that is fine.
 */
import { join } from 'node:path';
import type { TokenizerJson } from './config-schemas.ts';
import { HfTokenizerError } from './hf-tokenizer-error.ts';

export function tokenizerVocabSize(dir: string, json: TokenizerJson): number {
  let max = -1;
  const vocab = json.model.vocab;
  if (Array.isArray(vocab)) max = vocab.length - 1;
  else {
    for (const [token, id] of Object.entries(vocab)) {
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) {
        const file = join(dir, 'tokenizer.json');
        throw new HfTokenizerError(
          'HF_TOKENIZER_CONFIG_INVALID',
          `${file}: field "model.vocab": token ${JSON.stringify(token)} has id ${JSON.stringify(id)}, not a non-negative integer`,
          file,
          'model.vocab',
        );
      }
      if (id > max) max = id;
    }
  }
  for (const token of json.added_tokens) if (token.id > max) max = token.id;
  return max + 1;
}

export function checkVocabFits(dir: string, tokenizerSize: number, modelVocabSize: number): void {
  if (tokenizerSize <= modelVocabSize) return;
  const file = join(dir, 'tokenizer.json');
  throw new HfTokenizerError(
    'HF_TOKENIZER_VOCAB_MISMATCH',
    `${file} has token ids up to ${tokenizerSize - 1} (${tokenizerSize} tokens) but the model's vocab_size is ${modelVocabSize}: ` +
      'ids past it have no embedding row; the tokenizer does not belong to this model',
    file,
    'model.vocab',
  );
}
