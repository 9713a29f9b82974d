/**
 * The shapes every part of the LLM path speaks: the conversation sent to an OpenAI-compatible
 * chat endpoint, one reply with its accounting, and the run-wide usage totals. The transport
 * (chat-client.ts), the policy (llm-policy.ts) and the policy server
 * (servers/policy-server/policy-server.ts) all import these, so they cannot drift apart. The
 * per-turn accounting a decision carries is the episode's (`TurnUsage`, machines/episode.machine.ts).
 */

export type ChatRole = 'system' | 'user' | 'assistant';

/** One message of a chat conversation, as an OpenAI-compatible endpoint takes it. */
export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

/** What the policy asks of the endpoint for one turn. */
export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Sampling seed; actorgym sends the episode's seed so a server that honours it is reproducible. */
  readonly seed?: number;
}

/** Where a call belongs: the record/replay key and the label of every error. */
export interface CallKey {
  readonly episodeId: string;
  /** 0-based turn within the episode. */
  readonly turn: number;
  /** The turn's one retry after a context-length rejection, with a trimmed history (recorded and replayed apart from the first try). */
  readonly trimmed?: boolean;
}

/** One call that ended (a reply, or an error other than a cancel): what an evaluation tallies per episode. */
export interface CallEnded {
  readonly key: CallKey;
  readonly ok: boolean;
  readonly retries: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** One completed call. */
export interface ChatReply {
  /** The assistant message's text. */
  readonly content: string;
  /** From the response's `usage`; 0 when the server sent none. */
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Wall time of the successful attempt, in milliseconds. */
  readonly latencyMs: number;
  /** Failed attempts before this one. */
  readonly retries: number;
}

/** Run-wide totals of one chat client (summary, `--json`, results.json). */
export interface LlmUsage {
  readonly calls: number;
  readonly failedCalls: number;
  readonly retries: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Latency of successful attempts, milliseconds; 0 when there were none. */
  readonly latencyP50Ms: number;
  readonly latencyP95Ms: number;
  /** Most requests that were in flight at once. */
  readonly maxInFlight: number;
}
