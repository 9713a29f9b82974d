/**
 * One line of `DIR/episodes.jsonl`: a finished attempt of one (task, sample), with its whole
 * trajectory. Aborted attempts are written too (what failed, for the record) but are not results:
 * a (task, sample) is done once it has a record that is not aborted.
 */
import { z } from 'zod';
import { EpisodeOutputSchema, type EpisodeOutput } from '../machines/episode-record.ts';
import type { SampleResult } from './pass-at-k.ts';

/**
 * An LLM agent's calls for one attempt (every call that ended, the context-length retry and a
 * final failure included): written with the episode, so an evaluation's totals are the sum of its
 * lines and survive a killed process.
 */
export const EpisodeCallsSchema = z
  .object({
    calls: z.int().min(0),
    failedCalls: z.int().min(0),
    retries: z.int().min(0),
    promptTokens: z.int().min(0),
    completionTokens: z.int().min(0),
  })
  .readonly();
export type EpisodeCalls = z.infer<typeof EpisodeCallsSchema>;

/**
 * An episode's output (machines/episode-record.ts) less its run slot, plus which sample of its
 * task it is, the task's category and the env's own score: one schema, so a line read back is
 * parsed against the same shape that was written.
 */
export const EvalEpisodeRecordSchema = EpisodeOutputSchema.unwrap()
  .omit({ slot: true })
  .extend({
    /** 0..n−1. */
    sample: z.int().min(0),
    category: z.string().exactOptional(),
    /** The env's own score at the end (SciWorld's 0–100), when it reports one. */
    score: z.number().exactOptional(),
    /** An LLM agent's calls of this attempt (absent for other agents, and in lines written before they were kept). */
    llm: EpisodeCallsSchema.exactOptional(),
  })
  .readonly();
export type EvalEpisodeRecord = z.infer<typeof EvalEpisodeRecordSchema>;

export function episodeRecord(
  output: EpisodeOutput,
  slot: { readonly sample: number; readonly category: string | undefined; readonly score: number | undefined; readonly llm?: EpisodeCalls | undefined },
): EvalEpisodeRecord {
  return {
    episodeId: output.episodeId,
    taskId: output.taskId,
    sample: slot.sample,
    ...(slot.category !== undefined ? { category: slot.category } : {}),
    attempt: output.attempt,
    outcome: output.outcome,
    reward: output.reward,
    ...(slot.score !== undefined && output.outcome !== 'aborted' ? { score: slot.score } : {}),
    turns: output.turns,
    maxTurns: output.maxTurns,
    policyVersion: output.policyVersion,
    firstObservation: output.firstObservation,
    trajectory: output.trajectory,
    ...(output.abortReason ? { abortReason: output.abortReason } : {}),
    ...(output.error ? { error: output.error } : {}),
    ...(output.exhausted !== undefined ? { exhausted: output.exhausted } : {}),
    ...(slot.llm !== undefined ? { llm: slot.llm } : {}),
  };
}

/** What the metrics count of a record that is a result (not aborted). */
export function sampleResult(record: EvalEpisodeRecord): SampleResult {
  return {
    taskId: record.taskId,
    sample: record.sample,
    success: record.outcome === 'success',
    ...(record.category !== undefined ? { category: record.category } : {}),
    ...(record.score !== undefined ? { score: record.score } : {}),
  };
}
