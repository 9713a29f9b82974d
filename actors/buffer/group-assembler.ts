/**
 * Builds a step's trajectory groups from a collection's episodes as they end: each output joins
 * its group with the token record its policy handed out on release (the rollout's `onRelease`,
 * which the agent actor calls just before the episode's `onEpisode`). A group is complete once
 * each of its G slots has a scored (not aborted) episode, since a slot is collected again only
 * while its last attempt is aborted; it then leaves whole, its episodes in (slot, round, attempt)
 * order, exactly the order the learner read a step's episodes in before the buffer existed.
 */
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { recordOf, type RecordedEpisode } from '../../policy/observation-filter.ts';
import type { TokenTrajectory } from '../../policy/policy.ts';
import type { CollectedEpisode } from '../../learner/collected-step.ts';
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { episodeResult } from '../summarize.ts';

export interface GroupIdentity {
  readonly step: number;
  readonly horizon: number;
  readonly groupSize: number;
  /** The step's task ids, one per group. */
  readonly tasks: readonly string[];
  readonly policyVersion: number;
  readonly producer: string;
}

interface Pending {
  readonly episodes: { output: EpisodeOutput; round: number; record: RecordedEpisode | undefined }[];
  readonly scored: Set<number>;
}

export class GroupAssembler {
  readonly #records = new Map<string, RecordedEpisode>();
  readonly #pending = new Map<number, Pending>();

  constructor(
    readonly identity: GroupIdentity,
    readonly onGroup: (group: TrajectoryGroup) => void,
  ) {}

  /** The policy released an episode: its record waits for the episode's output. */
  released(episodeId: string, released: TokenTrajectory | undefined): void {
    const record = recordOf(released);
    if (record !== undefined) this.#records.set(episodeId, record);
  }

  /** An episode ended (aborted attempts too); completes its group when it is the last scored one. */
  episode(output: EpisodeOutput, round: number): void {
    const { groupSize } = this.identity;
    const index = Math.floor(output.slot / groupSize);
    const pending = this.#pending.get(index) ?? { episodes: [], scored: new Set<number>() };
    this.#pending.set(index, pending);
    const record = this.#records.get(output.episodeId);
    this.#records.delete(output.episodeId);
    pending.episodes.push({ output, round, record });
    if (output.outcome !== 'aborted') pending.scored.add(output.slot);
    if (pending.scored.size < groupSize) return;
    this.#pending.delete(index);
    this.onGroup(this.#group(index, pending));
  }

  #group(index: number, pending: Pending): TrajectoryGroup {
    const { step, horizon, tasks, policyVersion, producer } = this.identity;
    const ordered = pending.episodes.sort((a, b) => a.output.slot - b.output.slot || a.round - b.round || a.output.attempt - b.output.attempt);
    const episodes: CollectedEpisode[] = ordered.map(({ output, record }) => ({ output, group: index, record }));
    const bySlot = new Map<number, { last: EpisodeOutput; attempts: number }>();
    for (const { output } of ordered) bySlot.set(output.slot, { last: output, attempts: (bySlot.get(output.slot)?.attempts ?? 0) + 1 });
    const results = [...bySlot.values()].map(({ last, attempts }) => episodeResult(last, attempts));
    return { step, index, taskId: tasks[index] ?? '', horizon, policyVersion, producer, episodes, results };
  }
}
