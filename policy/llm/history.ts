/**
 * What of an episode's conversation is sent each turn. The conversation is
 * `[system…] user₀ (assistant user)*`: the head (any system messages and the first user turn,
 * which frames the task) is always sent; the rest is a run of exchanges, each an assistant reply
 * and the user turn after it. Trimming drops whole exchanges, oldest first, so the messages keep
 * alternating user/assistant and the newest user turn (the observation to act on) is always there.
 */
import type { ChatMessage } from './chat-types.ts';
import type { CondenseRules } from '../../envs/contract.ts';

export interface HistoryOptions {
  /**
   * Keep the first user turn and the last N exchanges (an exchange = assistant reply + the user
   * turn after it); undefined = all. The newest exchange is kept even at 0, since it holds the
   * observation to act on.
   */
  readonly historyTurns?: number;
  /**
   * Drop the oldest exchanges (never the system message or the first user turn, never the newest
   * user turn) until the estimate fits. When the head and the newest exchange alone are over the
   * budget they are sent as they are: the endpoint decides.
   */
  readonly maxContextTokens?: number;
  /** Token estimate of a text; default ceil(chars / 4). The estimate of a conversation is the sum over its messages' contents. */
  readonly countTokens?: (text: string) => number;
  /** Drop at least this many of the oldest exchanges (never the newest user turn): what a context-length rejection taught the policy. */
  readonly dropOldest?: number;
}

/** Exchanges after the head that may be dropped (all but the one holding the newest user turn and what follows it). */
export function droppableExchanges(messages: readonly ChatMessage[]): number {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  if (firstUser < 0) return 0;
  const exchanges = splitExchanges(messages.slice(firstUser + 1));
  const lastUser = exchanges.findLastIndex((e) => e.some((m) => m.role === 'user'));
  return lastUser < 0 ? exchanges.length : lastUser;
}

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export function trimHistory(messages: readonly ChatMessage[], options: HistoryOptions): ChatMessage[] {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  if (firstUser < 0) return [...messages];
  const head = messages.slice(0, firstUser + 1);
  const exchanges = splitExchanges(messages.slice(firstUser + 1));
  // The exchange that holds the newest user turn, and every one after it, is never dropped.
  const lastUser = exchanges.findLastIndex((e) => e.some((m) => m.role === 'user'));
  const keepFrom = lastUser < 0 ? exchanges.length : lastUser;

  const { historyTurns, maxContextTokens } = options;
  let start = historyTurns === undefined ? 0 : Math.min(keepFrom, Math.max(0, exchanges.length - Math.floor(historyTurns)));
  start = Math.max(start, Math.min(keepFrom, options.dropOldest ?? 0));

  if (maxContextTokens !== undefined) {
    const count = options.countTokens ?? estimateTokens;
    const cost = (ms: readonly ChatMessage[]) => ms.reduce((sum, m) => sum + count(m.content), 0);
    let total = cost(head) + exchanges.slice(start).reduce((sum, e) => sum + cost(e), 0);
    while (total > maxContextTokens && start < keepFrom) {
      total -= cost(exchanges[start] as ChatMessage[]);
      start += 1;
    }
  }
  return [...head, ...exchanges.slice(start).flat()];
}

/** Each exchange starts at an assistant message and runs to the next one. */
function splitExchanges(rest: readonly ChatMessage[]): ChatMessage[][] {
  const exchanges: ChatMessage[][] = [];
  for (const message of rest) {
    const current = exchanges[exchanges.length - 1];
    if (message.role === 'assistant' || current === undefined) exchanges.push([message]);
    else current.push(message);
  }
  return exchanges;
}

/**
 * Every turn before the newest user turn through the template's `rules` (system messages stay):
 * what an env family with long observations (web) sends of its past. Runs before `trimHistory`,
 * so a token budget counts the condensed turns.
 */
export function condensePast(messages: readonly ChatMessage[], rules: CondenseRules): ChatMessage[] {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const firstUser = messages.findIndex((m) => m.role === 'user');
  return messages.map((m, i) => {
    if (i >= lastUser || m.role === 'system') return m;
    return { role: m.role, content: m.role === 'user' ? rules.user(m.content, i === firstUser) : rules.assistant(m.content) };
  });
}
