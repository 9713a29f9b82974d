/** The named special tokens of tokenizer_config.json as strings, as transformers' `special_tokens_map` gives them. */
import { SPECIAL_TOKEN_FIELDS, type SpecialTokenField, type TokenizerConfig } from './config-schemas.ts';

export type SpecialTokens = Partial<Record<SpecialTokenField, string>>;

export function specialTokensOf(config: TokenizerConfig | undefined): SpecialTokens {
  const out: SpecialTokens = {};
  for (const field of SPECIAL_TOKEN_FIELDS) {
    const value = config?.[field];
    if (value === null || value === undefined) continue;
    out[field] = typeof value === 'string' ? value : value.content;
  }
  return out;
}
