/**
 * The shapes of the tokenizer's files, as far as actorgym reads them. Everything else in them is
 * kept (loose objects) and handed on to the tokenizer library untouched.
 */
import { z } from 'zod';

const tokenId = z.number().int().nonnegative();

/** A special token in tokenizer_config.json: a string, or an AddedToken object with `content`. */
const specialToken = z.union([z.string(), z.looseObject({ content: z.string() })]).nullish();

/** The named special tokens transformers passes to a chat template (its `special_tokens_map`). */
export const SPECIAL_TOKEN_FIELDS = [
  'bos_token',
  'eos_token',
  'unk_token',
  'sep_token',
  'pad_token',
  'cls_token',
  'mask_token',
] as const;
export type SpecialTokenField = (typeof SPECIAL_TOKEN_FIELDS)[number];

export const tokenizerConfigSchema = z.looseObject({
  /** One template, or the legacy list of named templates (`default`, `tool_use`, …). */
  chat_template: z.union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }))]).nullish(),
  bos_token: specialToken,
  eos_token: specialToken,
  unk_token: specialToken,
  sep_token: specialToken,
  pad_token: specialToken,
  cls_token: specialToken,
  mask_token: specialToken,
});
export type TokenizerConfig = z.infer<typeof tokenizerConfigSchema>;

/** generation_config.json: `eos_token_id` is one id or a list (Llama 3.1 stops on three). */
export const generationConfigSchema = z.looseObject({
  eos_token_id: z.union([tokenId, z.array(tokenId)]).nullish(),
  bos_token_id: tokenId.nullish(),
  pad_token_id: tokenId.nullish(),
});
export type GenerationConfig = z.infer<typeof generationConfigSchema>;

/** tokenizer.json: the model's vocabulary (a token → id map, or Unigram's [token, score] list) and the added tokens. */
export const tokenizerJsonSchema = z.looseObject({
  model: z.looseObject({
    type: z.string().optional(),
    // Checked entry by entry in vocab-size.ts: a zod record over 150k entries costs half a second per load.
    vocab: z.custom<Readonly<Record<string, unknown>> | readonly unknown[]>(
      (v) => typeof v === 'object' && v !== null,
      'expected the token → id map (BPE, WordPiece) or the [token, score] list (Unigram)',
    ),
  }),
  added_tokens: z
    .array(
      z.looseObject({
        id: tokenId,
        content: z.string(),
        special: z.boolean().optional(),
        lstrip: z.boolean().optional(),
        rstrip: z.boolean().optional(),
      }),
    )
    .default([]),
});
export type TokenizerJson = z.infer<typeof tokenizerJsonSchema>;
