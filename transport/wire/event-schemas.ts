/**
 * zod schemas of the event stream's frames and of every `RunEvent` (streams/events.ts), so an
 * observer validates what it receives. Each `RunEvent` schema is checked against its TypeScript
 * type, so the two cannot drift apart.
 */
import { z } from 'zod';
import type { RunEvent, RunEventType } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';

type TrainingEventType = TrainingEvent['type'];
import { ErrorFrameSchema, RequestIdSchema } from './env-schemas.ts';

const split = z.enum(['train', 'test']);
const outcome = z.enum(['success', 'failure', 'truncated', 'aborted']);
const t = z.number();

const OutcomeCountsSchema = z.object({
  success: z.int().min(0),
  failure: z.int().min(0),
  truncated: z.int().min(0),
  aborted: z.int().min(0),
});

const EpisodeResultSchema = z.object({
  slot: z.int(),
  taskId: z.string(),
  outcome,
  reward: z.number(),
  turns: z.int(),
  maxTurns: z.int(),
  attempts: z.int(),
  abortReason: z.enum(['env_lost', 'env_timeout', 'env_error', 'agent_timeout', 'agent_error', 'protocol_error', 'cancelled']).exactOptional(),
});

const RolloutSummarySchema = z.object({
  env: z.string(),
  split,
  agent: z.string(),
  seed: z.number(),
  slots: z.int(),
  episodes: z.int(),
  attempts: z.int(),
  abortedAttempts: z.int(),
  abortReasons: z.record(z.string(), z.int()).readonly(),
  successRate: z.number(),
  abortedShare: z.number(),
  successRange: z.object({ low: z.number(), high: z.number() }).readonly(),
  meanReward: z.number(),
  meanTurns: z.number(),
  outcomes: OutcomeCountsSchema,
  horizon: z.int(),
  wallSeconds: z.number(),
  stepsPerSecond: z.number(),
  results: z.array(EpisodeResultSchema).readonly(),
});

export const RUN_EVENT_TYPES = [
  'run.started',
  'episode.started',
  'agent.acted',
  'env.stepped',
  'episode.finished',
  'horizon.changed',
  'run.finished',
] as const satisfies readonly RunEventType[];
const _everyTypeListed: [Exclude<RunEventType, (typeof RUN_EVENT_TYPES)[number]>] extends [never] ? true : false = true;
void _everyTypeListed;

const RunEventUnion = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run.started'), t, runId: z.string(), env: z.string(), split,
    episodes: z.int(), concurrency: z.int(), seed: z.number(), horizon: z.int(),
  }),
  z.object({
    type: z.literal('episode.started'), t, episodeId: z.string(), taskId: z.string(),
    slot: z.int(), attempt: z.int(), maxTurns: z.int(), policyVersion: z.int(),
  }),
  z.object({ type: z.literal('agent.acted'), t, episodeId: z.string(), turn: z.int(), action: z.string() }),
  z.object({
    type: z.literal('env.stepped'), t, episodeId: z.string(), turn: z.int(), reward: z.number(),
    terminated: z.boolean(), truncated: z.boolean(),
  }),
  z.object({
    type: z.literal('episode.finished'), t, episodeId: z.string(), taskId: z.string(),
    slot: z.int(), attempt: z.int(), outcome, reward: z.number(), turns: z.int(),
    maxTurns: z.int(), policyVersion: z.int(),
    abortReason: z
      .enum(['env_lost', 'env_timeout', 'env_error', 'agent_timeout', 'agent_error', 'protocol_error', 'cancelled'])
      .exactOptional(),
    error: z.string().exactOptional(),
  }),
  z.object({
    type: z.literal('horizon.changed'), t, from: z.int(), to: z.int(), step: z.int(), reason: z.string(),
  }),
  z.object({ type: z.literal('run.finished'), t, runId: z.string(), summary: RolloutSummarySchema }),
]);

// Both directions of assignability: the schema accepts exactly the RunEvent shapes.
type Parsed = z.infer<typeof RunEventUnion>;
const _schemaMatchesType: [Parsed extends RunEvent ? true : false, RunEvent extends Parsed ? true : false] = [true, true];
void _schemaMatchesType;

export const RunEventSchema: z.ZodType<RunEvent> = RunEventUnion;

/**
 * The learner's own events on a training run's stream (streams/training-events.ts). Their type
 * and time are checked; their payloads (metrics records, summaries) pass through as sent, since
 * they grow with the learner and an observer reads them as data, not as commands.
 */
export const TRAINING_EVENT_TYPES = [
  'training.started',
  'learner.stepped',
  'curriculum.decided',
  'checkpoint.saved',
  'evaluation.finished',
  'training.finished',
  'training.paused',
  'training.resumed',
] as const satisfies readonly TrainingEventType[];
const _everyTrainingTypeListed: [Exclude<TrainingEventType, RunEventType | (typeof TRAINING_EVENT_TYPES)[number]>] extends [never] ? true : false = true;
void _everyTrainingTypeListed;

const LearnerEventSchema = z.discriminatedUnion(
  'type',
  TRAINING_EVENT_TYPES.map((type) => z.looseObject({ type: z.literal(type), t: z.number() })) as unknown as [
    z.ZodObject<{ type: z.ZodLiteral<string>; t: z.ZodNumber }>,
  ],
);

/** Any event of a rollout or training run's stream. */
export const StreamEventSchema = z.union([RunEventSchema, LearnerEventSchema]) as unknown as z.ZodType<TrainingEvent>;

export const STREAM_EVENT_TYPES = [...RUN_EVENT_TYPES, ...TRAINING_EVENT_TYPES] as const;

/** Observer → event server. `types` absent means every type. */
export const SubscribeFrameSchema = z.object({
  op: z.literal('subscribe'),
  id: RequestIdSchema.exactOptional(),
  types: z.array(z.enum(STREAM_EVENT_TYPES)).exactOptional(),
  /** Replay only events whose `seq` is above this one (a reconnecting observer's last). */
  after: z.int().min(0).exactOptional(),
});
export type SubscribeFrame = z.infer<typeof SubscribeFrameSchema>;

/** Event server → observer. */
export const EventServerFrameSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subscribed'), replayed: z.int().min(0).exactOptional(), missed: z.int().min(0).exactOptional() }),
  z.object({ op: z.literal('event'), seq: z.int().min(0).exactOptional(), event: StreamEventSchema }),
  z.object({ op: z.literal('end') }),
  ErrorFrameSchema,
]);
export type EventServerFrame = z.infer<typeof EventServerFrameSchema>;
