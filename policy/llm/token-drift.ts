/**
 * The drift check of a token-exact turn: would a trainer that re-tokenizes the reply's text get
 * the ids the model sampled? A turn drifts when the server's text does not encode back to the
 * sampled ids (a model may spell a text with other ids than the tokenizer's own, and a server may
 * return ids of another tokenizer), when the ids do not decode to the server's text, or when the
 * server read the prompt as other ids than we sent. The record keeps the sampled ids either way;
 * drift says that a pipeline working from text would train on something else.
 */
import type { HfTokenizer } from '../hf/tokenizer/index.ts';

export interface DriftInput {
  /** The reply's ids without the stop id. */
  readonly contentIds: readonly number[];
  /** The reply's text as the server sent it. */
  readonly text: string;
  /** The prompt we sent, and the server's ids of it when it says (a chat-only server renders its own). */
  readonly promptIds: readonly number[];
  readonly serverPromptIds?: readonly number[];
}

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((id, i) => id === b[i]);

/** Why the turn drifts, or undefined when it does not. */
export function turnDrift(tokenizer: HfTokenizer, input: DriftInput): string | undefined {
  if (input.serverPromptIds !== undefined && !same(input.serverPromptIds, input.promptIds)) {
    return `the server read the prompt as ${input.serverPromptIds.length} ids, not the ${input.promptIds.length} rendered here`;
  }
  const decoded = tokenizer.decode(input.contentIds, { skipSpecialTokens: true });
  if (decoded !== input.text) return 'the reply\'s ids do not decode to its text';
  const encoded = tokenizer.encode(input.text, { addSpecialTokens: false });
  if (!same(encoded, input.contentIds)) return `re-tokenizing the reply's text gives ${encoded.length} other ids than the ${input.contentIds.length} sampled`;
  return undefined;
}
