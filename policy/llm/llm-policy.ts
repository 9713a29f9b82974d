import type { ActRequest, Decision, Policy, TokenTrajectory } from '../policy.ts';
import type { ChatClient } from './chat-client.ts';
import type { ChatMessage, ChatReply, ChatRequest, LlmUsage } from './chat-types.ts';
import { LlmError, type LlmErrorCode } from './llm-error.ts';
import { condensePast, trimHistory, type HistoryOptions } from './history.ts';
import type { FormatError, PromptTemplate } from '../../envs/contract.ts';

/**
 * Options of `new LlmPolicy`: its chat client, the env family's prompt template, and how much of
 * the history each call sends.
 */
export interface LlmPolicyOptions {
  /** The model name sent with every request (`openai:MODEL`). */
  readonly model: string;
  readonly client: ChatClient;
  /** The env's prompt and parsing rules (`promptOf(definition)`, envs/contract.ts). */
  readonly prompt: PromptTemplate;
  /** Sent only when set; otherwise the server's default applies. */
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** What of the conversation is sent each turn (default: all of it, past turns condensed when the prompt says how). */
  readonly history?: HistoryOptions;
  /** Send the episode's seed with each request (default true), so a server that honours it replays. */
  readonly sendSeed?: boolean;
}

// ---------------------------------------------------------------- the conversation, shared with policy/hf/agent/

/** What a turn's user message is built from (an `ActRequest` is one). */
export interface TurnInput {
  readonly observation: string;
  readonly availableActions?: readonly string[] | undefined;
}

/** The messages that open an episode: the prompt's system message when it has one, then the first user turn. */
export function openingMessages(prompt: PromptTemplate, turn: TurnInput): ChatMessage[] {
  const first: ChatMessage = { role: 'user', content: prompt.firstTurn(turn.observation, turn.availableActions) };
  return prompt.system !== undefined ? [{ role: 'system', content: prompt.system }, first] : [first];
}

/** A later user turn; `note` (the last reply's format error) is told before the observation. */
export function nextUserMessage(prompt: PromptTemplate, turn: TurnInput, note: string | undefined): ChatMessage {
  return { role: 'user', content: prompt.nextTurn(turn.observation, turn.availableActions, note) };
}

/** A reply read by the env's rules. */
export interface ReadReply {
  /** What the env is sent: the parsed action, or for an unparsable reply an action the env rejects (the turn counts). */
  readonly action: string;
  readonly formatError?: FormatError;
  /** What the model is told on its next turn (the format error's message). */
  readonly note?: string;
}

/** Reads a model's reply by the env family's rules (`PromptTemplate.parseReply`). */
export function readReply(prompt: PromptTemplate, reply: string): ReadReply {
  const parsed = prompt.parseReply(reply);
  return parsed.ok ? { action: parsed.action } : { action: parsed.envAction, formatError: parsed.error, note: parsed.message };
}

const FATAL: ReadonlySet<LlmErrorCode> = new Set(['LLM_REJECTED', 'LLM_REPLAY_MISMATCH', 'LLM_REPLAY_MISSING']);

interface Conversation {
  readonly messages: ChatMessage[];
  /** The format error of the last reply, told to the model before its next observation. */
  note: string | undefined;
}

/**
 * `LlmPolicy`: a chat model behind an OpenAI-compatible endpoint as an agent, prompted in
 * AgentGym's contract. Each episode is one conversation: the first user turn frames the task and
 * shows the reset observation, every later observation is the next user turn, every reply the
 * assistant turn. A reply is parsed by the env's own rules (`EnvDefinition.prompt`); one that names no
 * action is the model's fault: the env gets an action it rejects (the turn counts) and the model
 * is told why on its next turn. A call that fails through its retries throws, which ends the
 * episode `aborted` (infrastructure), never `failure`.
 *
 * Decisions are independent calls (`concurrent`): the agent actor hands each one over as soon as
 * it arrives, and the chat client bounds how many are in flight.
 */
export class LlmPolicy implements Policy {
  readonly name: string;
  readonly version = 0;
  readonly concurrent = true;
  readonly #conversations = new Map<string, Conversation>();
  #fatal: LlmError | undefined;
  /**
   * Called once, at the first error that no retry or other episode can cure: the endpoint
   * rejected the request (bad key, unknown model) or a replay diverged from its recording. A
   * command stops its run here rather than abort every remaining episode the same way.
   */
  onFatal: ((error: LlmError) => void) | undefined;

  constructor(private readonly options: LlmPolicyOptions) {
    this.name = `openai:${options.model}`;
  }

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return Promise.all(batch.map((request) => this.#decide(request)));
  }

  async #decide(request: ActRequest): Promise<Decision> {
    const { prompt, client } = this.options;
    let conversation = this.#conversations.get(request.episodeId);
    if (conversation === undefined || request.turn === 0) {
      conversation = { messages: openingMessages(prompt, request), note: undefined };
      this.#conversations.set(request.episodeId, conversation);
    } else {
      conversation.messages.push(nextUserMessage(prompt, request, conversation.note));
    }
    const key = { episodeId: request.episodeId, turn: request.turn };
    let reply: ChatReply;
    try {
      reply = await client.complete(this.#request(request, conversation.messages), key);
    } catch (error) {
      if (error instanceof LlmError && FATAL.has(error.code) && this.#fatal === undefined) {
        this.#fatal = error;
        this.onFatal?.(error);
      }
      throw error;
    }
    conversation.messages.push({ role: 'assistant', content: reply.content });
    const read = readReply(prompt, reply.content);
    conversation.note = read.note;
    const usage = {
      promptTokens: reply.promptTokens,
      completionTokens: reply.completionTokens,
      latencyMs: reply.latencyMs,
      retries: reply.retries,
      reply: reply.content,
      ...(read.formatError !== undefined ? { formatError: read.formatError } : {}),
    };
    return { action: read.action, usage };
  }

  #request(request: ActRequest, messages: readonly ChatMessage[]): ChatRequest {
    const { model, temperature, maxTokens, history, sendSeed, prompt } = this.options;
    const sent = prompt.condensePast ? condensePast(messages, prompt.condensePast) : messages;
    return {
      model,
      messages: history ? trimHistory(sent, history) : [...sent],
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(sendSeed === false ? {} : { seed: request.seed }),
    };
  }

  /** The conversation of a running episode (for tests and debugging). */
  conversation(episodeId: string): readonly ChatMessage[] | undefined {
    return this.#conversations.get(episodeId)?.messages;
  }

  /** The first fatal error (see `onFatal`), if any. */
  get fatalError(): LlmError | undefined {
    return this.#fatal;
  }

  /** Run-wide calls, tokens, retries and latency of the chat client. */
  usage(): LlmUsage {
    return this.options.client.usage();
  }

  /** The trajectory keeps the replies (turn usage); there are no token ids to hand back. */
  release(episodeId: string): TokenTrajectory | undefined {
    this.#conversations.delete(episodeId);
    return undefined;
  }
}
