export { loadHfTokenizer } from './load-hf-tokenizer.ts';
export type { DecodeOptions, EncodeOptions, HfTokenizer, LoadHfTokenizerOptions } from './load-hf-tokenizer.ts';
export type { ChatMessage, ChatTemplateOptions } from './chat-template.ts';
export { HfTokenizerError } from './hf-tokenizer-error.ts';
export type { HfTokenizerErrorCode } from './hf-tokenizer-error.ts';
