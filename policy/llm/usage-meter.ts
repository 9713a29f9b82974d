/**
 * The run-wide accounting of one chat client: calls, failures, retries, tokens, latency
 * percentiles and the most attempts in flight at once.
 *
 * Latencies are kept one number per successful call (8 bytes each: a million calls is 8 MB) so
 * that p50/p95 are exact, not estimated from buckets.
 */
import type { ChatReply, LlmUsage } from './chat-types.ts';

export class UsageMeter {
  #calls = 0;
  #failedCalls = 0;
  #retries = 0;
  #promptTokens = 0;
  #completionTokens = 0;
  readonly #latencies: number[] = [];
  #inFlight = 0;
  #maxInFlight = 0;

  /** An attempt holds a concurrency slot and is on the wire. */
  attemptStarted(): void {
    this.#inFlight += 1;
    if (this.#inFlight > this.#maxInFlight) this.#maxInFlight = this.#inFlight;
  }

  attemptEnded(): void {
    this.#inFlight -= 1;
  }

  /** A call ended with a reply (live or replayed). */
  succeeded(reply: ChatReply): void {
    this.#calls += 1;
    this.#retries += reply.retries;
    this.#promptTokens += reply.promptTokens;
    this.#completionTokens += reply.completionTokens;
    this.#latencies.push(reply.latencyMs);
  }

  /** A call ended with an error after `retries` retries. */
  failed(retries: number): void {
    this.#calls += 1;
    this.#failedCalls += 1;
    this.#retries += retries;
  }

  usage(): LlmUsage {
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    return {
      calls: this.#calls,
      failedCalls: this.#failedCalls,
      retries: this.#retries,
      promptTokens: this.#promptTokens,
      completionTokens: this.#completionTokens,
      latencyP50Ms: percentile(sorted, 0.5),
      latencyP95Ms: percentile(sorted, 0.95),
      maxInFlight: this.#maxInFlight,
    };
  }
}

/** Nearest-rank percentile of ascending values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] ?? 0;
}
