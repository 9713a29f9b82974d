/**
 * The text of a generation, as vLLM returns it: the generated ids decoded without special tokens,
 * the stop id that ended the sequence left out of the text (it stays in `tokens`). With the
 * request's `stop` strings, the reply ends before the first one found, and its tokens are cut to
 * the shortest prefix whose text holds it: the strings are applied after generating, so a
 * sequence stopped by one still cost its whole `max_tokens` of decoding.
 */
import type { Generation } from '../../../policy/hf/generate.ts';
import type { HfTokenizer } from '../../../policy/hf/tokenizer/index.ts';

export interface ReplyText {
  readonly text: string;
  readonly tokens: readonly number[];
  readonly logProbs: readonly number[];
  readonly finish: 'stop' | 'length';
}

export function replyText(generation: Generation, tokenizer: HfTokenizer, stop: readonly string[]): ReplyText {
  const textOf = (tokens: readonly number[]): string => {
    const ended = generation.finish === 'stop' && tokens.length === generation.tokens.length;
    return tokenizer.decode(ended ? tokens.slice(0, -1) : tokens, { skipSpecialTokens: true });
  };
  const whole = { text: textOf(generation.tokens), tokens: generation.tokens, logProbs: generation.logProbs, finish: generation.finish };
  if (stop.length === 0 || firstStop(whole.text, stop) === undefined) return whole;
  for (let n = 1; n <= generation.tokens.length; n++) {
    const tokens = generation.tokens.slice(0, n);
    const text = textOf(tokens);
    const at = firstStop(text, stop);
    if (at !== undefined) return { text: text.slice(0, at), tokens, logProbs: generation.logProbs.slice(0, n), finish: 'stop' };
  }
  return whole;
}

/** Where the earliest of `stop` starts in `text`, if any does. */
function firstStop(text: string, stop: readonly string[]): number | undefined {
  let first: number | undefined;
  for (const s of stop) {
    const at = text.indexOf(s);
    if (at >= 0 && (first === undefined || at < first)) first = at;
  }
  return first;
}
