/**
 * The control frames of the learner protocol (docs/distributed-training.md#protocol), one zod
 * schema each with types inferred. Control frames are JSON text frames with an `op`; weights
 * travel in binary frames (weights-frame.ts), each right after the `welcome` or `version` frame
 * that announces it.
 *
 * The `group` frame's payload is a trajectory group; its schema is the learner's
 * (learner/trajectory-group.ts), which this room may not import, so the frame keeps it as
 * `unknown` and the learner server validates it with that schema before anything else sees it.
 */
import { z } from 'zod';

/** An assignment's id: chosen by the learner, echoed by the worker. */
export const AssignmentIdSchema = z.string().min(1).max(128);

export const HelloFrameSchema = z.object({
  op: z.literal('hello'),
  /** `LEARNER_PROTOCOL`; the learner refuses another. */
  protocol: z.int(),
  /** The worker's name, for logs and each group's `producer`; the learner makes it unique. */
  worker: z.string().min(1).max(128),
  /** The env id the worker rolls out; must be the learner's. */
  env: z.string().min(1).max(256),
});

export const GroupFrameSchema = z.object({
  op: z.literal('group'),
  id: AssignmentIdSchema,
  /** A TrajectoryGroup (learner/trajectory-group.ts), validated by the learner. */
  group: z.unknown(),
});

export const DoneFrameSchema = z.object({ op: z.literal('done'), id: AssignmentIdSchema });

export const FailedFrameSchema = z.object({ op: z.literal('failed'), id: AssignmentIdSchema, reason: z.string().max(4096) });

/** Worker → learner. */
export const WorkerFrameSchema = z.discriminatedUnion('op', [HelloFrameSchema, GroupFrameSchema, DoneFrameSchema, FailedFrameSchema]);
export type WorkerFrame = z.infer<typeof WorkerFrameSchema>;
export const WORKER_OPS: ReadonlySet<string> = new Set(['hello', 'group', 'done', 'failed']);

/**
 * What a worker needs to build the policy it samples with and to derive a step's tasks and
 * seeds the learner's way: the explicit fields for any client, and the run's whole training
 * config (learner/training-config-schema.ts) for actorgym's own workers.
 */
export const RunSpecSchema = z.object({
  env: z.string().min(1),
  seed: z.number(),
  tasksPerStep: z.int().min(1),
  groupSize: z.int().min(1),
  concurrency: z.int().min(1),
  temperature: z.number().min(0),
  /** The run's TrainingConfig; an actorgym worker parses it with the learner's schema. */
  config: z.record(z.string(), z.unknown()),
  /** Our transformer's tokenizer (policy/tokenizer.ts TokenizerJSON); absent for a Hugging Face model, whose folder the worker has. */
  tokenizer: z.unknown().optional(),
});
export type RunSpec = z.infer<typeof RunSpecSchema>;

export const WelcomeFrameSchema = z.object({
  op: z.literal('welcome'),
  protocol: z.int(),
  /** The worker's name as the learner knows it (its hello name, made unique). */
  worker: z.string().min(1),
  run: RunSpecSchema,
  /** The policy version of the weights frame that follows. */
  version: z.int().min(0),
});

export const AssignFrameSchema = z.object({
  op: z.literal('assign'),
  id: AssignmentIdSchema,
  step: z.int().min(1),
  horizon: z.int().min(1),
  /** Indices of the step's groups to collect. */
  groups: z.array(z.int().min(0)).min(1),
});

export const VersionFrameSchema = z.object({ op: z.literal('version'), version: z.int().min(0) });

export const CancelFrameSchema = z.object({ op: z.literal('cancel'), id: AssignmentIdSchema });

export const DrainFrameSchema = z.object({ op: z.literal('drain'), reason: z.string() });

export const LEARNER_ERROR_CODES = [
  'BAD_JSON', 'BAD_FRAME', 'UNKNOWN_OP', 'PROTOCOL_MISMATCH', 'ENV_MISMATCH', 'HELLO_FIRST', 'HELLO_AGAIN', 'BAD_GROUP', 'ASSIGNMENT_UNKNOWN',
] as const;
export type LearnerErrorCode = (typeof LEARNER_ERROR_CODES)[number];

/** The learner's answer to a bad frame; `id` when the frame named an assignment. */
export const LearnerErrorFrameSchema = z.object({
  op: z.literal('error'),
  code: z.enum(LEARNER_ERROR_CODES),
  message: z.string(),
  id: AssignmentIdSchema.optional(),
});

/** Learner → worker. */
export const LearnerFrameSchema = z.discriminatedUnion('op', [
  WelcomeFrameSchema, AssignFrameSchema, VersionFrameSchema, CancelFrameSchema, DrainFrameSchema, LearnerErrorFrameSchema,
]);
export type LearnerFrame = z.infer<typeof LearnerFrameSchema>;
export const LEARNER_OPS: ReadonlySet<string> = new Set(['welcome', 'assign', 'version', 'cancel', 'drain', 'error']);

export type HelloFrame = z.infer<typeof HelloFrameSchema>;
export type WelcomeFrame = z.infer<typeof WelcomeFrameSchema>;
export type AssignFrame = z.infer<typeof AssignFrameSchema>;
export type LearnerErrorFrame = z.infer<typeof LearnerErrorFrameSchema>;
