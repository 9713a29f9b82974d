import type { ActRequest, Decision, Policy, TokenTrajectory } from '../policy.ts';
import type { ChatClient } from './chat-client.ts';
import type { CallEnded, CallKey, ChatMessage, ChatReply, ChatRequest, LlmUsage } from './chat-types.ts';
import { planContextRetry } from './context-retry.ts';
import { LlmError, type LlmErrorCode } from './llm-error.ts';
import { condensePast, trimHistory, type HistoryOptions } from './history.ts';
import { visibleReply, type ReasoningMode } from './reasoning.ts';
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
  /** `strip` (default): a reply's `<think>…</think>` is neither parsed for the action nor sent back (reasoning.ts); `keep`: both. */
  readonly reasoning?: ReasoningMode;
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

const FATAL: ReadonlySet<LlmErrorCode> = new Set(['LLM_REJECTED', 'LLM_UNREACHABLE', 'LLM_REPLAY_MISMATCH', 'LLM_REPLAY_MISSING']);

interface Conversation {
  readonly messages: ChatMessage[];
  /** The format error of the last reply, told to the model before its next observation. */
  note: string | undefined;
  /** Oldest exchanges left out of every request since a context-length rejection of this episode. */
  dropOldest: number;
  /** The completion budget, lowered by a context-length rejection whose numbers asked for it. */
  maxTokens: number | undefined;
}

/** A turn's reply, or why the episode cannot go on (its context is full: it ends `truncated`). */
type Called = { readonly reply: ChatReply } | { readonly exhausted: string };

/**
 * `LlmPolicy`: a chat model behind an OpenAI-compatible endpoint as an agent, prompted in
 * AgentGym's contract. Each episode is one conversation: the first user turn frames the task and
 * shows the reset observation, every later observation is the next user turn, every reply the
 * assistant turn. A reply is parsed by the env's own rules (`EnvDefinition.prompt`); one that names no
 * action is the model's fault: the env gets an action it rejects (the turn counts) and the model
 * is told why on its next turn. A call that fails through its retries throws, which ends the
 * episode `aborted` (infrastructure), never `failure`. A context-length rejection is tried once
 * more with a trimmed history; a second one ends the episode `truncated` (`exhausted`), as a
 * horizon would. A reasoning model's `<think>` is kept out of parsing and history (`reasoning`).
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
  /** Called as each call ends (not a cancel): an evaluation tallies calls and tokens per episode with it. */
  onCallEnded: ((call: CallEnded) => void) | undefined;

  constructor(private readonly options: LlmPolicyOptions) {
    this.name = `openai:${options.model}`;
  }

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return Promise.all(batch.map((request) => this.#decide(request)));
  }

  async #decide(request: ActRequest): Promise<Decision> {
    const { prompt } = this.options;
    let conversation = this.#conversations.get(request.episodeId);
    if (conversation === undefined || request.turn === 0) {
      conversation = { messages: openingMessages(prompt, request), note: undefined, dropOldest: 0, maxTokens: this.options.maxTokens };
      this.#conversations.set(request.episodeId, conversation);
    } else {
      conversation.messages.push(nextUserMessage(prompt, request, conversation.note));
    }
    const called = await this.#complete(request, conversation);
    if ('exhausted' in called) return { action: '', exhausted: called.exhausted };
    const { reply } = called;
    // The env and the next turn see the reply without its thinking; the trajectory keeps it whole.
    const visible = visibleReply(reply.content, this.options.reasoning ?? 'strip');
    conversation.messages.push({ role: 'assistant', content: visible });
    const read = readReply(prompt, visible);
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

  /**
   * The turn's call. A context-length rejection is tried once more with the oldest exchanges
   * dropped (and `max_tokens` lowered when the server's numbers say so), which later turns of the
   * episode keep; a second rejection, or nothing left to drop, ends the episode `truncated` with
   * the reason. Other errors end it `aborted` (thrown).
   */
  async #complete(request: ActRequest, conversation: Conversation): Promise<Called> {
    const key: CallKey = { episodeId: request.episodeId, turn: request.turn };
    try {
      return { reply: await this.#call(this.#request(request, conversation), key) };
    } catch (error) {
      if (!(error instanceof LlmError && error.code === 'LLM_CONTEXT_LENGTH')) throw this.#noted(error);
      const retry = planContextRetry({
        messages: this.#sent(conversation.messages),
        history: this.options.history,
        dropOldest: conversation.dropOldest,
        maxTokens: conversation.maxTokens,
        detail: error.detail,
      });
      if (retry === undefined) return { exhausted: `context_length: ${error.detail}; nothing left to trim` };
      conversation.dropOldest = retry.dropOldest;
      conversation.maxTokens = retry.maxTokens;
      try {
        return { reply: await this.#call(this.#request(request, conversation), { ...key, trimmed: true }) };
      } catch (again) {
        if (again instanceof LlmError && again.code === 'LLM_CONTEXT_LENGTH') return { exhausted: `context_length: ${again.detail}; after one retry that ${retry.change}` };
        throw this.#noted(again);
      }
    }
  }

  async #call(request: ChatRequest, key: CallKey): Promise<ChatReply> {
    try {
      const reply = await this.options.client.complete(request, key);
      this.onCallEnded?.({ key, ok: true, retries: reply.retries, promptTokens: reply.promptTokens, completionTokens: reply.completionTokens });
      return reply;
    } catch (error) {
      if (error instanceof LlmError && error.code !== 'LLM_CANCELLED') this.onCallEnded?.({ key, ok: false, retries: error.retries, promptTokens: 0, completionTokens: 0 });
      throw error;
    }
  }

  /** The error, after telling `onFatal` when it is the first that no retry or other episode can cure. */
  #noted(error: unknown): unknown {
    if (error instanceof LlmError && FATAL.has(error.code) && this.#fatal === undefined) {
      this.#fatal = error;
      this.onFatal?.(error);
    }
    return error;
  }

  #sent(messages: readonly ChatMessage[]): readonly ChatMessage[] {
    const { prompt } = this.options;
    return prompt.condensePast ? condensePast(messages, prompt.condensePast) : messages;
  }

  #request(request: ActRequest, conversation: Conversation): ChatRequest {
    const { model, temperature, history, sendSeed } = this.options;
    const sent = this.#sent(conversation.messages);
    const trim = conversation.dropOldest > 0 ? { ...history, dropOldest: conversation.dropOldest } : history;
    const maxTokens = conversation.maxTokens;
    return {
      model,
      messages: trim ? trimHistory(sent, trim) : [...sent],
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
