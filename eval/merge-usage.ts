/**
 * LLM usage over the sessions of a resumed evaluation. Counts add up and the peak in flight is the
 * larger one. Latency percentiles cannot be merged from two summaries: they are averaged weighted
 * by each session's calls, which is exact for one session and an approximation after a resume.
 */
import type { LlmUsage } from '../policy/llm/chat-types.ts';

export function mergeUsage(a: LlmUsage | null, b: LlmUsage | null): LlmUsage | null {
  if (a === null || b === null) return a ?? b;
  const calls = a.calls + b.calls;
  const weighted = (x: number, y: number) => (calls === 0 ? 0 : (x * a.calls + y * b.calls) / calls);
  return {
    calls,
    failedCalls: a.failedCalls + b.failedCalls,
    retries: a.retries + b.retries,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    latencyP50Ms: weighted(a.latencyP50Ms, b.latencyP50Ms),
    latencyP95Ms: weighted(a.latencyP95Ms, b.latencyP95Ms),
    maxInFlight: Math.max(a.maxInFlight, b.maxInFlight),
  };
}
