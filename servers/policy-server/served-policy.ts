/**
 * The served transformer behind the chat endpoint: conversation in, one reply out, with the
 * episode's state kept between requests.
 *
 * A request that continues a conversation this server answered (its messages up to the last
 * assistant turn hash to a kept session) acts on just its new observation: the episode's context
 * and KV cache are reused. Any other conversation is rebuilt: its past turns are replayed into a
 * fresh episode (`TransformerPolicy.teacherForce`) and the next `act` prefills them. Both paths
 * read the same context, so the reply does not depend on which one ran.
 *
 * Sampling follows `eval --checkpoint`: the request's `seed` is the episode's seed and the turn
 * is the number of assistant turns, so every draw comes from `turnRng(seed, turn)`. Without a
 * seed a fresh random one is drawn per request (an OpenAI client expects varied samples then).
 * Concurrent requests are decoded in one batch (decode-batcher.ts).
 */
import { randomInt } from 'node:crypto';
import type { ChatMessage } from '../../policy/llm/chat-types.ts';
import type { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { ApiError } from './api-error.ts';
import { readConversation, type EpisodeView } from './conversation.ts';
import { DecodeBatcher, DEFAULT_MAX_BATCH, DEFAULT_MAX_QUEUE } from './decode-batcher.ts';
import { seenTurn, type ModelView } from './model-view.ts';
import type { ServedPrompt } from './served-prompt.ts';
import { conversationKey, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionStore } from './sessions.ts';

/** The reply's thought: the transformer decodes actions only, so the thought is a fixed line. */
export const SERVED_THOUGHT = 'I pick the next step from what I see now.';

export interface ServedPolicyOptions {
  readonly policy: TransformerPolicy;
  /** The checkpoint's observation filter and hidden actions. */
  readonly view: ModelView;
  readonly prompt: ServedPrompt;
  /** The env the checkpoint trained on (named in errors). */
  readonly envId: string;
  /** Idle sessions kept (default 4096, least recently used evicted). */
  readonly maxSessions?: number;
  /** A session idle this long is dropped (default 10 minutes). */
  readonly sessionIdleMs?: number;
  /** Requests decoded in one batch at most (default 256). */
  readonly maxBatch?: number;
  /** Requests waiting to decode at most (default 1024; beyond, 503 server_busy). */
  readonly maxQueue?: number;
  /** Milliseconds, for session idleness (default Date.now). */
  readonly now?: () => number;
  /** The seed of a request that sends none (default a random 32-bit integer). */
  readonly randomSeed?: () => number;
}

export interface Sampling {
  readonly seed?: number;
  /** 0 = greedy; absent = the policy's temperature (the checkpoint's evaluation temperature). */
  readonly temperature?: number;
  readonly topP?: number;
}

export interface ServedReply {
  /** The assistant message: the template's reply for `action`. */
  readonly content: string;
  readonly action: string;
  /** Tokens of the context window the model read for this action. */
  readonly promptTokens: number;
  /** Action tokens sampled, `</act>` included. */
  readonly completionTokens: number;
  /** True when the conversation continued a kept session; false when it was rebuilt. */
  readonly resumed: boolean;
}

export class ServedPolicy {
  readonly #sessions: SessionStore;
  readonly #batcher: DecodeBatcher;
  readonly #now: () => number;
  readonly #randomSeed: () => number;
  #episodes = 0;
  #closed = false;
  /** Requests that continued a session, and requests that were rebuilt. */
  readonly counts = { resumed: 0, rebuilt: 0 };

  constructor(readonly options: ServedPolicyOptions) {
    const { policy } = options;
    this.#sessions = new SessionStore({
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
      release: (episodeId) => void policy.release(episodeId),
    });
    this.#batcher = new DecodeBatcher((batch) => policy.act(batch), {
      maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH,
      maxQueue: options.maxQueue ?? DEFAULT_MAX_QUEUE,
    });
    this.#now = options.now ?? Date.now;
    this.#randomSeed = options.randomSeed ?? (() => randomInt(0, 2 ** 32));
  }

  /** Sessions held (idle, between requests). */
  get sessions(): number {
    return this.#sessions.size;
  }

  /** The conversation as an episode; a 400 ApiError when the template did not render it. */
  read(messages: readonly ChatMessage[]): EpisodeView {
    return readConversation(messages, this.options.prompt, this.options.envId);
  }

  /** Decides the next action of the conversation `messages` (read as `view`) and keeps its session. */
  async reply(messages: readonly ChatMessage[], view: EpisodeView, sampling: Sampling): Promise<ServedReply> {
    if (this.#closed) throw new ApiError(503, 'server_closing', 'the server is shutting down');
    const { policy, prompt } = this.options;
    this.#sessions.reap(this.#now());
    const kept = view.turn > 0 ? this.#sessions.claim(conversationKey(view.prefix)) : undefined;
    const episodeId = kept ?? `chat-${++this.#episodes}`;
    if (kept === undefined) {
      policy.teacherForce(episodeId, view.past.map((turn) => ({ ...seenTurn(this.options.view, turn), action: turn.action })));
      this.counts.rebuilt += 1;
    } else {
      this.counts.resumed += 1;
    }
    const latest = seenTurn(this.options.view, view.latest);
    let decision;
    try {
      decision = await this.#batcher.submit({
        episodeId,
        turn: view.turn,
        observation: latest.observation,
        ...(latest.availableActions !== undefined ? { availableActions: latest.availableActions } : {}),
        seed: sampling.seed ?? this.#randomSeed(),
        ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
        ...(sampling.topP !== undefined ? { topP: sampling.topP } : {}),
      });
    } catch (error) {
      policy.release(episodeId);
      throw error;
    }
    const completionTokens = decision.tokenIds?.length ?? 0;
    const promptTokens = (policy.contextTokens(episodeId)?.length ?? completionTokens) - completionTokens;
    const content = prompt.formatReply(SERVED_THOUGHT, decision.action);
    if (this.#closed) policy.release(episodeId);
    else this.#sessions.keep(conversationKey([...messages, { role: 'assistant', content }]), episodeId, this.#now());
    return { content, action: decision.action, promptTokens, completionTokens, resumed: kept !== undefined };
  }

  /** Refuses further requests and frees every session (the policy itself is not disposed). */
  close(): void {
    this.#closed = true;
    this.#batcher.close();
    this.#sessions.clear();
  }
}
