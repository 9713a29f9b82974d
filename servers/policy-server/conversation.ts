/**
 * A chat conversation as the episode the transformer was trained on. The conversation is
 * `[system…] user assistant user … user`: the first user turn's observation is the reset
 * observation, each assistant turn is parsed back into the action the env received, and each
 * later user turn's observation is the next observation. Turn index = number of assistant turns.
 */
import type { ChatMessage } from '../../policy/llm/chat-types.ts';
import type { ForcedTurn } from '../../policy/transformer-policy.ts';
import { ApiError } from './api-error.ts';
import type { ReadTurn, ServedPrompt } from './served-prompt.ts';

export interface EpisodeView {
  /** Turns 0 … turn−1: what the env showed and what was done. */
  readonly past: readonly ForcedTurn[];
  /** The latest user turn: the observation to act on. */
  readonly latest: ReadTurn;
  readonly turn: number;
  /** The messages up to and including the last assistant turn (empty at turn 0): the session key's text. */
  readonly prefix: readonly ChatMessage[];
}

const bad = (message: string, param: string) => new ApiError(400, 'invalid_conversation', message, param);

/** Reads `messages` with `prompt`; a conversation the template did not render is a 400 naming the message. */
export function readConversation(messages: readonly ChatMessage[], prompt: ServedPrompt, envId: string): EpisodeView {
  const past: ForcedTurn[] = [];
  let latest: ReadTurn | undefined;
  let prefixEnd = 0;
  let expect: 'user' | 'assistant' = 'user';
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    if (message.role === 'system') {
      if (latest !== undefined) throw bad(`${param}: a system message may only come before the first user turn`, `${param}.role`);
      return;
    }
    if (message.role !== expect) {
      throw bad(`${param}: expected a${expect === 'user' ? ' user' : 'n assistant'} turn, got ${message.role}: turns alternate user, assistant, …, user`, `${param}.role`);
    }
    if (message.role === 'user') {
      const first = latest === undefined;
      const read = prompt.readTurn(message.content, first);
      if (read === undefined) {
        throw bad(
          `${param}: not a${first ? ' first' : ''} user turn of actorgym's ${envId} prompt; this server reads the conversations that actorgym's LLM policy (--agent openai:MODEL --env ${envId}) sends`,
          `${param}.content`,
        );
      }
      latest = read;
      expect = 'assistant';
    } else {
      const parsed = prompt.parseReply(message.content);
      past.push({ ...(latest as ReadTurn), action: parsed.ok ? parsed.action : parsed.envAction });
      prefixEnd = i + 1;
      expect = 'user';
    }
  });
  if (latest === undefined || expect === 'user') {
    throw bad('the conversation must end with a user turn (the observation to act on)', `messages[${messages.length - 1}].role`);
  }
  return { past, latest, turn: past.length, prefix: messages.slice(0, prefixEnd) };
}
