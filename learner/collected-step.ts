/**
 * What the learner is handed for one step: the episodes a collect function gathered (in actorgym,
 * actors/training/collect.ts runs them through the rollout system). The learner reads these
 * shapes and never calls a system itself.
 */
import type { EpisodeOutput } from '../machines/episode.machine.ts';
import type { RecordedEpisode } from '../policy/observation-filter.ts';
import type { RolloutSummary } from '../streams/events.ts';

export interface CollectedEpisode {
  readonly output: EpisodeOutput;
  /** Index of the task group (⌊slot / G⌋): the G rollouts of one task share it. */
  readonly group: number;
  /** The policy's token windows and action lists; undefined when the agent never acted (e.g. aborted at reset). */
  readonly record: RecordedEpisode | undefined;
}

export interface CollectedStep {
  readonly step: number;
  readonly horizon: number;
  /** Every attempt, aborted ones included, in (slot, round, attempt) order — never in finishing order. */
  readonly episodes: readonly CollectedEpisode[];
  /** Over every round: each slot's last result, attempts summed. */
  readonly summary: RolloutSummary;
  /** Rollouts run: 1, plus one per collection of aborted slots. */
  readonly rounds: number;
  readonly seconds: number;
}
