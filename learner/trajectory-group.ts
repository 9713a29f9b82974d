/**
 * A trajectory group: the G rollouts of one task for one learner step, as a producer (the local
 * collector, or a rollout worker over the learner socket) hands them to the buffer actor and the
 * buffer hands them to the learner. GRPO and RLOO compare the members of a group, so a group is
 * the unit of the whole data path: produced whole, kept whole, trained on whole or dropped whole.
 *
 * Every member was produced by the same weights, `policyVersion`; staleness is the learner's
 * version when it trains on the group minus this one. One schema for the shape, used in process
 * and on the wire (docs/distributed-training.md).
 */
import { z } from 'zod';
import { EpisodeOutputSchema } from '../machines/episode-record.ts';
import { EpisodeResultSchema } from '../streams/events.ts';
import type { CollectedEpisode } from './collected-step.ts';

const TokenTrajectorySchema = z.object({
  tokens: z.array(z.int().min(0)),
  mask: z.array(z.union([z.literal(0), z.literal(1)])),
  logProbs: z.array(z.number()),
  /** The drawn-from (constrained) distribution's log-probs, when the policy records them (policy/policy.ts). */
  sampledLogProbs: z.array(z.number()).exactOptional(),
});

/** What the policy recorded of one episode: its token windows and each turn's offered actions. */
export const RecordedEpisodeSchema = z.object({
  trajectory: TokenTrajectorySchema.extend({ windows: z.array(TokenTrajectorySchema) }),
  availableActions: z.array(z.array(z.string()).optional().nullable().transform((v) => v ?? undefined)),
});

export const CollectedEpisodeSchema = z.object({
  output: EpisodeOutputSchema,
  group: z.int().min(0),
  record: RecordedEpisodeSchema.optional(),
});

export const TrajectoryGroupSchema = z.object({
  /** The learner step the group was collected for (its tasks and seeds derive from it). */
  step: z.int().min(1),
  /** The group's index in its step: slots index·G … index·G + G − 1. */
  index: z.int().min(0),
  taskId: z.string(),
  horizon: z.int().min(1),
  /** The weights every member was sampled with. */
  policyVersion: z.int().min(0),
  /** Who produced it: `local`, or a worker's name. */
  producer: z.string().min(1),
  /** Every attempt, aborted ones included, in (slot, round, attempt) order. */
  episodes: z.array(CollectedEpisodeSchema),
  /** Each slot's last result (one per slot of the group), attempts counted. */
  results: z.array(EpisodeResultSchema),
});

export type TrajectoryGroup = Readonly<Omit<z.infer<typeof TrajectoryGroupSchema>, 'episodes'>> & {
  readonly episodes: readonly CollectedEpisode[];
};

/** The group's key in a run: step and index. */
export function groupKey(group: Pick<TrajectoryGroup, 'step' | 'index'>): string {
  return `${group.step}/${group.index}`;
}

/** Versions the learner had advanced past the group's when it trains on it (0 in synchronous training). */
export function staleness(group: Pick<TrajectoryGroup, 'policyVersion'>, learnerVersion: number): number {
  return learnerVersion - group.policyVersion;
}
