/**
 * The policy server's sessions: a conversation it answered, keyed by a hash of its messages up to
 * and including the server's reply, holds the episode id whose context and KV cache the
 * transformer keeps. A request continuing that conversation claims the session and acts on just
 * the new observation; anything else is rebuilt by replaying the conversation (`teacherForce`).
 *
 * Bounds: at most `maxSessions` (default 4096) idle sessions, least recently used evicted first;
 * a session idle longer than `idleMs` (default 10 minutes) is dropped at the next request. The
 * chat protocol never says that an episode ended, so these two bounds are how a finished
 * episode's state is freed. A dropped session costs only a rebuild if its conversation continues.
 * A claimed session (being decoded) is out of the store, so it cannot be evicted mid-decode.
 */
import { createHash } from 'node:crypto';
import type { ChatMessage } from '../../policy/llm/chat-types.ts';

export const DEFAULT_MAX_SESSIONS = 4096;
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;

/** sha256 of the messages' roles and texts (JSON keeps the boundaries unambiguous). */
export function conversationKey(messages: readonly ChatMessage[]): string {
  return createHash('sha256').update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest('hex');
}

interface Session {
  readonly episodeId: string;
  readonly lastUsed: number;
}

export class SessionStore {
  /** In least-recently-used order (a Map iterates in insertion order). */
  readonly #sessions = new Map<string, Session>();

  constructor(
    readonly options: {
      readonly maxSessions: number;
      readonly idleMs: number;
      /** Frees an evicted session's episode (TransformerPolicy.release). */
      readonly release: (episodeId: string) => void;
    },
  ) {
    if (!(Number.isInteger(options.maxSessions) && options.maxSessions >= 0)) throw new Error(`maxSessions must be an integer ≥ 0, got ${options.maxSessions}`);
    if (!(options.idleMs > 0)) throw new Error(`idleMs must be > 0, got ${options.idleMs}`);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The episode of the conversation `key`, taken out of the store; undefined when there is none. */
  claim(key: string): string | undefined {
    const session = this.#sessions.get(key);
    if (session === undefined) return undefined;
    this.#sessions.delete(key);
    return session.episodeId;
  }

  /** Keeps `episodeId` as the session of conversation `key`, evicting beyond `maxSessions`. */
  keep(key: string, episodeId: string, now: number): void {
    // The same conversation answered twice (a retried request): the newer episode wins.
    const previous = this.#sessions.get(key);
    if (previous !== undefined) {
      this.#sessions.delete(key);
      if (previous.episodeId !== episodeId) this.options.release(previous.episodeId);
    }
    this.#sessions.set(key, { episodeId, lastUsed: now });
    for (const [oldest, session] of this.#sessions) {
      if (this.#sessions.size <= this.options.maxSessions) break;
      this.#sessions.delete(oldest);
      this.options.release(session.episodeId);
    }
  }

  /** Drops sessions idle for longer than `idleMs`. */
  reap(now: number): void {
    for (const [key, session] of this.#sessions) {
      if (now - session.lastUsed <= this.options.idleMs) break;
      this.#sessions.delete(key);
      this.options.release(session.episodeId);
    }
  }

  clear(): void {
    for (const session of this.#sessions.values()) this.options.release(session.episodeId);
    this.#sessions.clear();
  }
}
