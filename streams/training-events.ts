/**
 * The event stream of a training run: every rollout event of every learner step (streams/events.ts)
 * plus the learner's own, one zod schema each with its type `z.infer`red from it, all
 * JSON-serialisable, with `t` in milliseconds since the Unix epoch from the run's injected clock
 * (as in streams/events.ts). docs/events.md lists every field.
 */
import { z } from 'zod';
import { jsonNumber, RolloutSummarySchema, RUN_EVENT_SCHEMAS, type RunEvent, type RunEventType } from './events.ts';

const t = z.number();

/** The learner is about to take its first step (of this process: `fromStep` on a resumed run). */
export const TrainingStartedSchema = z.object({
  type: z.literal('training.started'),
  t,
  env: z.string(),
  /** `grpo`, `ppo`, `reinforce++`, `rloo`, or `sft` for behaviour cloning. */
  algo: z.string(),
  /** The tfjs backend in use ('wasm', 'cpu', 'tensorflow'). */
  backend: z.string(),
  /** Threads computing the learner's gradients: 2 when a worker takes half of each minibatch. */
  learnerThreads: z.int(),
  /** Learner steps already done (0, or the checkpoint's step on resume). */
  fromStep: z.int(),
  /** The step the run trains up to. */
  targetSteps: z.int(),
  /** The run directory ('' when it writes none). */
  out: z.string(),
  /** Trainable parameters of the policy. */
  parameters: z.int(),
  vocabSize: z.int(),
});
/** The learner is about to take its first step (of this process: `fromStep` on a resumed run). */
export type TrainingStarted = Readonly<z.infer<typeof TrainingStartedSchema>>;

/** One learner step is done. */
export const LearnerSteppedSchema = z.object({
  type: z.literal('learner.stepped'),
  t,
  step: z.int(),
  /** Version of the weights after the step. */
  policyVersion: z.int(),
  /**
   * The metrics.jsonl line of this step, less the curriculum's decision (`curriculum.decided`
   * carries it). A NaN metric (a mean over nothing) is `null` on the wire, read back as NaN.
   */
  metrics: z.record(z.string(), jsonNumber).readonly(),
});
/** One learner step is done. */
export type LearnerStepped = Readonly<z.infer<typeof LearnerSteppedSchema>>;

/**
 * The curriculum's decision after learner step `step` (every step, also when it holds): the
 * horizon moves from `from` to `to` at step `step + 1`. `signals` are what it read — this step's
 * success, turns, truncation share and entropy, and for adaptive schedules their trends over the
 * window (docs/curriculum.md); null where unknown.
 */
export const CurriculumDecidedSchema = z.object({
  type: z.literal('curriculum.decided'),
  t,
  step: z.int(),
  /** The horizon of step `step`. */
  from: z.int(),
  /** The horizon of step `step + 1`. */
  to: z.int(),
  decision: z.enum(['raise', 'hold', 'back']),
  /** Why, in words. */
  reason: z.string(),
  signals: z.record(z.string(), z.number().nullable()).readonly(),
});
/** The curriculum's decision after learner step `step` (docs/curriculum.md). */
export type CurriculumDecided = Readonly<z.infer<typeof CurriculumDecidedSchema>>;

/** A checkpoint was written. */
export const CheckpointSavedSchema = z.object({
  type: z.literal('checkpoint.saved'),
  t,
  /** The learner step it holds. */
  step: z.int(),
  /** Its directory. */
  path: z.string(),
});
/** A checkpoint was written. */
export type CheckpointSaved = Readonly<z.infer<typeof CheckpointSavedSchema>>;

/** The final evaluation on the test split is done. */
export const EvaluationFinishedSchema = z.object({
  type: z.literal('evaluation.finished'),
  t,
  summary: RolloutSummarySchema.readonly(),
});
/** The final evaluation on the test split is done. */
export type EvaluationFinished = Readonly<z.infer<typeof EvaluationFinishedSchema>>;

/** The learner ended. */
export const TrainingFinishedSchema = z.object({
  type: z.literal('training.finished'),
  t,
  /** Learner steps done in all (a resumed run counts the checkpoint's too). */
  steps: z.int(),
  /** How the learner ended: the target was reached, stop() was called, or an effect failed. */
  status: z.enum(['done', 'stopped', 'failed']),
  /** Why it ended before its target step, when a time budget ended it (status done). */
  reason: z.string().exactOptional(),
});
/** The learner ended. */
export type TrainingFinished = Readonly<z.infer<typeof TrainingFinishedSchema>>;

/**
 * A learner step's collection is on hold: some of its slots were aborted (their env servers were
 * lost) and no env server is reachable. The learner never trains on a batch cut short by aborts;
 * it waits here, and `training.resumed` follows once a server is back.
 */
export const TrainingPausedSchema = z.object({
  type: z.literal('training.paused'),
  t,
  /** The learner step being collected. */
  step: z.int(),
  /** Task slots of the step still to collect. */
  slots: z.int(),
  /** Why, in words. */
  reason: z.string(),
});
/** A learner step's collection is on hold until an env server is reachable again. */
export type TrainingPaused = Readonly<z.infer<typeof TrainingPausedSchema>>;

/** Collection goes on after a `training.paused`. */
export const TrainingResumedSchema = z.object({
  type: z.literal('training.resumed'),
  t,
  step: z.int(),
  slots: z.int(),
  /** How long collection was on hold. */
  pausedSeconds: z.number(),
});
/** Collection goes on after a `training.paused`. */
export type TrainingResumed = Readonly<z.infer<typeof TrainingResumedSchema>>;

/**
 * The buffer actor's numbers (actors/buffer/trajectory-buffer.ts), which holds the run's training
 * data as trajectory groups: when a step's groups are all ready, when the learner takes them, and
 * when a group is dropped. Never per episode.
 */
export const BufferChangedSchema = z.object({
  type: z.literal('buffer.changed'),
  t,
  /** Groups asked of a producer or ready, against `capacity`. */
  fill: z.int().min(0),
  capacity: z.int().min(0),
  /** Groups ready for the learner. */
  ready: z.int().min(0),
  /** Groups the learner has taken (trained on) in this process. */
  trained: z.int().min(0),
  /** Groups dropped because the learner had moved more than `maxStaleness` versions past their weights (collected again). */
  droppedStale: z.int().min(0),
  /** Groups offered a second time (same step and index); the first was kept. */
  droppedDuplicate: z.int().min(0),
  /** Staleness (learner version − policy version) → groups trained at it; `{"0": n}` in synchronous training. */
  stalenessHistogram: z.record(z.string(), z.int().min(0)),
  /** The learner's version the buffer judges staleness against. */
  learnerVersion: z.int().min(0),
  /** The last step the learner took out of the buffer. */
  takenThrough: z.int().min(0),
});
/** The buffer actor's fill, counts and staleness histogram. */
export type BufferChanged = Readonly<z.infer<typeof BufferChangedSchema>>;

/** The learner's own event schemas, beside the run events of its steps. */
export const LEARNER_EVENT_SCHEMAS = [
  TrainingStartedSchema,
  LearnerSteppedSchema,
  CurriculumDecidedSchema,
  CheckpointSavedSchema,
  EvaluationFinishedSchema,
  TrainingFinishedSchema,
  TrainingPausedSchema,
  TrainingResumedSchema,
  BufferChangedSchema,
] as const;

/** Any event of a rollout or training run's stream, parsed by its `type`. */
export const TrainingEventSchema = z.discriminatedUnion('type', [...RUN_EVENT_SCHEMAS, ...LEARNER_EVENT_SCHEMAS]);

/** Any event of a training run's stream: the run events of its steps and the learner's own. */
export type TrainingEvent =
  | RunEvent
  | TrainingStarted
  | LearnerStepped
  | CurriculumDecided
  | CheckpointSaved
  | EvaluationFinished
  | TrainingFinished
  | TrainingPaused
  | TrainingResumed
  | BufferChanged;

/** The `type` of a training event (docs/events.md lists each with its fields). */
export type TrainingEventType = TrainingEvent['type'];

/** The learner's own event types. */
export const TRAINING_EVENT_TYPES = LEARNER_EVENT_SCHEMAS.map((schema) => schema.shape.type.value) as readonly Exclude<TrainingEventType, RunEventType>[];

// The schema parses to exactly the union above (both directions of assignability).
type Parsed = z.infer<typeof TrainingEventSchema>;
const _schemaMatchesType: [Parsed extends TrainingEvent ? true : false, TrainingEvent extends Parsed ? true : false] = [true, true];
void _schemaMatchesType;
