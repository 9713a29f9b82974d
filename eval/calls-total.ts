/**
 * An LLM agent's totals over an evaluation, summed from its episode lines (each carries the calls
 * of its attempt, eval-record.ts): what a killed session had finished is counted exactly, and what
 * it had not (episodes run again on resume) is not counted twice. Latency percentiles are exact,
 * over every turn's latency; the peak in flight is the largest any session saw.
 */
import type { LlmUsage } from '../policy/llm/chat-types.ts';
import { percentile } from '../policy/llm/usage-meter.ts';
import type { EpisodeCalls, EvalEpisodeRecord } from './eval-record.ts';

/** A line's calls; for a line written before they were kept, what its turns show (answered calls only). */
export function callsOf(record: EvalEpisodeRecord): EpisodeCalls {
  if (record.llm !== undefined) return record.llm;
  const turns = record.trajectory.flatMap((turn) => (turn.usage !== undefined ? [turn.usage] : []));
  return {
    calls: turns.length,
    failedCalls: 0,
    retries: turns.reduce((sum, usage) => sum + usage.retries, 0),
    promptTokens: turns.reduce((sum, usage) => sum + usage.promptTokens, 0),
    completionTokens: turns.reduce((sum, usage) => sum + usage.completionTokens, 0),
  };
}

export function callsTotal(records: readonly EvalEpisodeRecord[], maxInFlight: number): LlmUsage {
  const total = { calls: 0, failedCalls: 0, retries: 0, promptTokens: 0, completionTokens: 0 };
  const latencies: number[] = [];
  for (const record of records) {
    const calls = callsOf(record);
    total.calls += calls.calls;
    total.failedCalls += calls.failedCalls;
    total.retries += calls.retries;
    total.promptTokens += calls.promptTokens;
    total.completionTokens += calls.completionTokens;
    for (const turn of record.trajectory) if (turn.usage !== undefined) latencies.push(turn.usage.latencyMs);
  }
  latencies.sort((a, b) => a - b);
  return { ...total, latencyP50Ms: percentile(latencies, 0.5), latencyP95Ms: percentile(latencies, 0.95), maxInFlight };
}

/** Adds one ended call to an attempt's tally. */
export function addCall(tally: EpisodeCalls | undefined, call: { readonly ok: boolean; readonly retries: number; readonly promptTokens: number; readonly completionTokens: number }): EpisodeCalls {
  const base = tally ?? { calls: 0, failedCalls: 0, retries: 0, promptTokens: 0, completionTokens: 0 };
  return {
    calls: base.calls + 1,
    failedCalls: base.failedCalls + (call.ok ? 0 : 1),
    retries: base.retries + call.retries,
    promptTokens: base.promptTokens + call.promptTokens,
    completionTokens: base.completionTokens + call.completionTokens,
  };
}
