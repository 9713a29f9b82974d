/**
 * One line of `DIR/episodes.jsonl`: a finished attempt of one (task, sample), with its whole
 * trajectory. Aborted attempts are written too (what failed, for the record) but are not results:
 * a (task, sample) is done once it has a record that is not aborted.
 */
import type { EpisodeOutput, EpisodeTurn } from '../machines/episode.machine.ts';
import type { AbortReason, EpisodeOutcome } from '../streams/events.ts';
import type { SampleResult } from './pass-at-k.ts';

export interface EvalEpisodeRecord {
  readonly episodeId: string;
  readonly taskId: string;
  /** 0..n−1. */
  readonly sample: number;
  readonly category?: string;
  readonly attempt: number;
  readonly outcome: EpisodeOutcome;
  readonly reward: number;
  /** The env's own score at the end (SciWorld's 0–100), when it reports one. */
  readonly score?: number;
  readonly turns: number;
  readonly maxTurns: number;
  readonly policyVersion: number;
  readonly firstObservation: string;
  /** Every turn as the episode recorded it: action, observation, reward, and what the decision carried (`usage`, tokens). */
  readonly trajectory: readonly EpisodeTurn[];
  readonly abortReason?: AbortReason;
  readonly error?: string;
}

export function episodeRecord(
  output: EpisodeOutput,
  slot: { readonly sample: number; readonly category: string | undefined; readonly score: number | undefined },
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
