/**
 * Which ids end a generation. `eosIds` are generation_config.json's `eos_token_id` (one id or a
 * list: Llama 3.1 lists <|end_of_text|>, <|eom_id|> and <|eot_id|>), falling back to
 * tokenizer_config.json's `eos_token` when the folder has no generation config or it names none.
 * `stopIds` adds the tokenizer's `eos_token` to them: a chat model ends its turn with it (Qwen's
 * <|im_end|>) even where the generation config names only the document end.
 */
import { join } from 'node:path';
import type { GenerationConfig } from './config-schemas.ts';
import { HfTokenizerError } from './hf-tokenizer-error.ts';
import type { SpecialTokens } from './special-tokens.ts';

export interface StopIds {
  readonly eosIds: readonly number[];
  readonly stopIds: readonly number[];
}

export function stopIdsOf(
  dir: string,
  generation: GenerationConfig | undefined,
  special: SpecialTokens,
  tokenToId: (token: string) => number | undefined,
  vocabSize: number,
): StopIds {
  let tokenizerEos: number | undefined;
  if (special.eos_token !== undefined) {
    tokenizerEos = tokenToId(special.eos_token);
    if (tokenizerEos === undefined) {
      const file = join(dir, 'tokenizer_config.json');
      throw new HfTokenizerError(
        'HF_TOKENIZER_CONFIG_INVALID',
        `${file}: field "eos_token": ${JSON.stringify(special.eos_token)} is not a token of tokenizer.json`,
        file,
        'eos_token',
      );
    }
  }
  const configured = generation?.eos_token_id;
  const fromGeneration = configured === null || configured === undefined ? [] : typeof configured === 'number' ? [configured] : configured;
  for (const id of fromGeneration) {
    if (id >= vocabSize) {
      const file = join(dir, 'generation_config.json');
      throw new HfTokenizerError(
        'HF_TOKENIZER_CONFIG_INVALID',
        `${file}: field "eos_token_id": ${id} is not an id of the tokenizer (${vocabSize} tokens)`,
        file,
        'eos_token_id',
      );
    }
  }
  const eosIds = fromGeneration.length > 0 ? unique(fromGeneration) : tokenizerEos === undefined ? [] : [tokenizerEos];
  const stopIds = tokenizerEos === undefined ? eosIds : unique([...eosIds, tokenizerEos]);
  return { eosIds, stopIds };
}

function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}
