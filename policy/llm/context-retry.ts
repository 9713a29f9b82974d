/**
 * What the one retry after a context-length rejection changes: the oldest half of the exchanges
 * that may go (never the system message, the first user turn or the newest observation), and
 * `max_tokens` when the server's numbers show the completion budget is what does not fit (the
 * prompt alone is under the window). Nothing left to change: no retry, the episode ends.
 */
import type { ChatMessage } from './chat-types.ts';
import { contextLimits } from './context-length.ts';
import { droppableExchanges, trimHistory, type HistoryOptions } from './history.ts';

export interface ContextRetryInput {
  /** The conversation as it is sent before trimming (condensed when the prompt condenses). */
  readonly messages: readonly ChatMessage[];
  readonly history: HistoryOptions | undefined;
  /** Exchanges already dropped by an earlier rejection of this episode. */
  readonly dropOldest: number;
  /** The completion budget that was sent (undefined: none). */
  readonly maxTokens: number | undefined;
  /** The rejection's detail, with the server's words. */
  readonly detail: string;
}

export interface ContextRetry {
  readonly dropOldest: number;
  readonly maxTokens: number | undefined;
  /** In words, for the episode's reason if the retry fails too. */
  readonly change: string;
}

export function planContextRetry(input: ContextRetryInput): ContextRetry | undefined {
  const droppable = droppableExchanges(input.messages);
  const kept = droppableExchanges(trimHistory(input.messages, { ...input.history, dropOldest: input.dropOldest }));
  const dropped = droppable - kept;
  const dropOldest = kept > 0 ? dropped + Math.ceil(kept / 2) : input.dropOldest;
  const maxTokens = lowered(input, kept === 0);
  const changes = [
    ...(dropOldest > dropped ? [`dropped the oldest ${dropOldest} of ${droppable} exchanges`] : []),
    ...(maxTokens !== input.maxTokens ? [`max_tokens ${input.maxTokens} → ${maxTokens}`] : []),
  ];
  if (changes.length === 0) return undefined;
  return { dropOldest: Math.max(dropOldest, input.dropOldest), maxTokens, change: changes.join(', ') };
}

/** A smaller completion budget when the numbers say the prompt fits but the budget does not, or when nothing else can give. */
function lowered(input: ContextRetryInput, nothingToDrop: boolean): number | undefined {
  const { maxTokens } = input;
  if (maxTokens === undefined) return undefined;
  const { limit, prompt } = contextLimits(input.detail);
  if (limit !== undefined && prompt !== undefined) return prompt < limit && limit - prompt < maxTokens ? limit - prompt : maxTokens;
  return nothingToDrop && maxTokens > 1 ? Math.floor(maxTokens / 2) : maxTokens;
}
