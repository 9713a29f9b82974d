/**
 * What a grown conversation adds to the text a policy already holds as tokens. A multi-turn
 * episode keeps its tokens (the sampled ones as sampled) and appends only the new turn's ids; this
 * finds the text to append and says when that is not safe:
 *
 * - the new render must start with the held text. Templates that rewrite earlier turns break
 *   this (Qwen3 drops an earlier turn's <think> block once a new user query follows);
 * - the cut must sit next to an added token (<|im_end|>, <|eot_id|>…). The tokenizer splits added
 *   tokens out before anything else, so text on either side of one is encoded on its own and the
 *   ids of the parts are the ids of the whole; elsewhere two pieces of text could merge into one
 *   token. Added tokens that strip neighbouring spaces (lstrip/rstrip) do not count.
 *
 * When either fails the caller encodes the whole conversation again.
 */

export interface AddedTokenSpelling {
  readonly content: string;
  readonly lstrip?: boolean | undefined;
  readonly rstrip?: boolean | undefined;
}

/** The text to append to `held` to make `next`, or undefined when appending would not give `next`'s ids. */
export function chatContinuation(held: string, next: string, addedTokens: readonly AddedTokenSpelling[]): string | undefined {
  if (!next.startsWith(held)) return undefined;
  const delta = next.slice(held.length);
  if (held === '' || delta === '') return delta;
  const clean = addedTokens.filter((t) => t.content !== '' && t.lstrip !== true && t.rstrip !== true);
  const atCut = clean.some((t) => held.endsWith(t.content) || delta.startsWith(t.content));
  return atCut ? delta : undefined;
}
