/**
 * The typed event stream of a run: one zod schema per event, its TypeScript type `z.infer`red
 * from it. Every event is JSON-serialisable, carries `t` and a `type` in `domain.verb` form. `t`
 * is when the run emitted it, in milliseconds since the Unix epoch, read from the run's injected
 * clock (`RunClock.now()`, actors/clock.ts: `Date.now()` by default; a run given another clock
 * stamps what that clock returns); it is not relative to the run's start. The same objects travel
 * in-process (an RxJS Observable) and over WebSocket (`docs/protocol.md`), where an observer
 * parses them with these schemas. docs/events.md lists every field.
 */
import { z } from 'zod';
import type { Split } from '../envs/contract.ts';
import { AbortReasonSchema, EpisodeOutcomeSchema, OutcomeCountsSchema } from '../machines/outcome.ts';
import type { AbortReason, EpisodeOutcome, OutcomeCounts } from '../machines/outcome.ts';

// The machines own these; the events carry them.
export type { AbortReason, EpisodeOutcome, OutcomeCounts };

export const SplitSchema = z.enum(['train', 'test', 'test-templates']);
const _splitIsEnvSplit: [Split, z.infer<typeof SplitSchema>] extends [z.infer<typeof SplitSchema>, Split] ? true : false = true;
void _splitIsEnvSplit;

const t = z.number();
const count = z.int().min(0);

/**
 * A number that JSON may have turned into `null`: `JSON.stringify(NaN)` is `null`, so a rate or
 * mean over nothing (NaN in-process) arrives as `null` over the wire and is read back as NaN.
 */
export const jsonNumber = z.union([z.number(), z.null().transform(() => Number.NaN)]);

/** One task slot's result in a `RolloutSummary`. */
export const EpisodeResultSchema = z.object({
  slot: z.int(),
  taskId: z.string(),
  outcome: EpisodeOutcomeSchema,
  reward: z.number(),
  turns: z.int(),
  maxTurns: z.int(),
  attempts: z.int(),
  /** Why the last attempt was aborted, when the slot settled as `aborted`. */
  abortReason: AbortReasonSchema.exactOptional(),
});
/** One settled episode as a summary lists it: task, outcome, reward, turns and abort reason (docs/events.md). */
export type EpisodeResult = Readonly<z.infer<typeof EpisodeResultSchema>>;

/** What `rollout --json` prints and `createRolloutSystem` resolves to. */
export const RolloutSummarySchema = z.object({
  env: z.string(),
  split: SplitSchema,
  agent: z.string(),
  seed: z.number(),
  /** Task slots the run was given. */
  slots: z.int(),
  /**
   * Task slots settled, each exactly once, with the outcome of its last attempt. Fewer than
   * `slots` only when the run was stopped: the rest never started and are counted in
   * `abortedShare`, never in the rates.
   */
  episodes: z.int(),
  /** Attempts, including retries after aborts. */
  attempts: z.int(),
  /** Attempts that ended aborted, the retried ones included. */
  abortedAttempts: z.int(),
  /** `abortedAttempts` by abort reason (`env_lost`, `env_timeout`, …). */
  abortReasons: z.record(z.string(), z.int()).readonly(),
  /** Successes over scored episodes (settled and not aborted). */
  successRate: z.number(),
  /**
   * Share of `slots` with no scored outcome: settled as aborted, or never settled (a stopped
   * run). `--max-aborted` (default 0.05) is checked against it.
   */
  abortedShare: z.number(),
  /**
   * The success rate over all `slots` had every slot without a scored outcome failed (`low`) or
   * succeeded (`high`): the true rate of the full run lies in between, whatever the missing
   * episodes would have done.
   */
  successRange: z.object({ low: z.number(), high: z.number() }).readonly(),
  /** Mean total reward over episodes that were not aborted. */
  meanReward: z.number(),
  meanTurns: z.number(),
  outcomes: OutcomeCountsSchema,
  horizon: z.int(),
  wallSeconds: z.number(),
  stepsPerSecond: z.number(),
  /** Per-slot results, in slot order. */
  results: z.array(EpisodeResultSchema.readonly()).readonly(),
});
/** A rollout's summary: success rate, mean reward and turns over scored episodes, the outcomes, the aborted share and every episode's result (docs/events.md). */
export type RolloutSummary = Readonly<z.infer<typeof RolloutSummarySchema>>;

/** The run begins: what it runs and how. */
export const RunStartedSchema = z.object({
  type: z.literal('run.started'),
  t,
  runId: z.string(),
  env: z.string(),
  split: SplitSchema,
  /** Task slots the run will settle. */
  episodes: count,
  /** Episodes that run at once. */
  concurrency: z.int(),
  seed: z.number(),
  /** The horizon (`maxTurns`) episodes start with. */
  horizon: z.int(),
});
/** The run begins: what it runs and how. */
export type RunStarted = Readonly<z.infer<typeof RunStartedSchema>>;

/** An episode (one attempt at a task slot) begins. */
export const EpisodeStartedSchema = z.object({
  type: z.literal('episode.started'),
  t,
  episodeId: z.string(),
  taskId: z.string(),
  /** Index of the task slot in the run; retries of a slot share it. */
  slot: z.int(),
  /** 0 for the first attempt, 1.. for retries after an abort. */
  attempt: z.int(),
  /** The horizon this episode runs with; a later `horizon.changed` does not touch it. */
  maxTurns: z.int(),
  /** Version of the weights that act in it. */
  policyVersion: z.int(),
});
/** An episode (one attempt at a task slot) begins. */
export type EpisodeStarted = Readonly<z.infer<typeof EpisodeStartedSchema>>;

/** The agent chose an action (high-rate: lossy over the wire). */
export const AgentActedSchema = z.object({
  type: z.literal('agent.acted'),
  t,
  episodeId: z.string(),
  /** 0-based turn within the episode. */
  turn: z.int(),
  action: z.string(),
});
/** The agent chose an action (high-rate: lossy over the wire). */
export type AgentActed = Readonly<z.infer<typeof AgentActedSchema>>;

/** The env carried the action out (high-rate: lossy over the wire). */
export const EnvSteppedSchema = z.object({
  type: z.literal('env.stepped'),
  t,
  episodeId: z.string(),
  /** 0-based turn within the episode. */
  turn: z.int(),
  /** This step's reward. */
  reward: z.number(),
  /** The env ended the episode. */
  terminated: z.boolean(),
  /** The env cut the episode short (its own limit). */
  truncated: z.boolean(),
});
/** The env carried the action out (high-rate: lossy over the wire). */
export type EnvStepped = Readonly<z.infer<typeof EnvSteppedSchema>>;

/** An episode ended with exactly one outcome. */
export const EpisodeFinishedSchema = z.object({
  type: z.literal('episode.finished'),
  t,
  episodeId: z.string(),
  taskId: z.string(),
  slot: z.int(),
  attempt: z.int(),
  outcome: EpisodeOutcomeSchema,
  /** Total reward; 0 for aborted episodes, which are never trained on. */
  reward: z.number(),
  /** Turns taken. */
  turns: z.int(),
  maxTurns: z.int(),
  policyVersion: z.int(),
  /** Set for `aborted`: what failed, and the error message. */
  abortReason: AbortReasonSchema.exactOptional(),
  error: z.string().exactOptional(),
  /** Set for a `truncated` episode the policy ended because it could not go on (its context window was full). */
  exhausted: z.string().exactOptional(),
});
/** An episode ended with exactly one outcome. */
export type EpisodeFinished = Readonly<z.infer<typeof EpisodeFinishedSchema>>;

/**
 * The curriculum moved the horizon: episodes that start from now on get `to` turns (their
 * `maxTurns`); running ones keep theirs. The horizon is `to`, not a field named `maxTurns`.
 */
export const HorizonChangedSchema = z.object({
  type: z.literal('horizon.changed'),
  t,
  /** The horizon (turns per episode) before the change. */
  from: z.int(),
  /** The horizon after it: the `maxTurns` of episodes that start from now on. */
  to: z.int(),
  /** The learner step at which the new horizon takes effect. */
  step: z.int(),
  /** Why, in words (the schedule's stage, or an adaptive schedule's decision). */
  reason: z.string(),
});
/**
 * The curriculum moved the horizon: episodes that start from now on get `to` turns (their
 * `maxTurns`); running ones keep theirs.
 */
export type HorizonChanged = Readonly<z.infer<typeof HorizonChangedSchema>>;

/** The run ended; its summary. */
export const RunFinishedSchema = z.object({
  type: z.literal('run.finished'),
  t,
  runId: z.string(),
  summary: RolloutSummarySchema.readonly(),
});
/** The run ended; its summary. */
export type RunFinished = Readonly<z.infer<typeof RunFinishedSchema>>;

/** Every run event's schema, in the order a run emits them. */
export const RUN_EVENT_SCHEMAS = [
  RunStartedSchema,
  EpisodeStartedSchema,
  AgentActedSchema,
  EnvSteppedSchema,
  EpisodeFinishedSchema,
  HorizonChangedSchema,
  RunFinishedSchema,
] as const;

/** Any event of a rollout run's stream, parsed by its `type`. */
export const RunEventSchema = z.discriminatedUnion('type', [...RUN_EVENT_SCHEMAS]);

/** Any event of a rollout run's stream. */
export type RunEvent = RunStarted | EpisodeStarted | AgentActed | EnvStepped | EpisodeFinished | HorizonChanged | RunFinished;

/** The `type` of a run event (docs/events.md lists each with its fields). */
export type RunEventType = RunEvent['type'];

/** Every run event type. */
export const RUN_EVENT_TYPES = RUN_EVENT_SCHEMAS.map((schema) => schema.shape.type.value) as readonly RunEventType[];

// The schema parses to exactly the union above (both directions of assignability).
type Parsed = z.infer<typeof RunEventSchema>;
const _schemaMatchesType: [Parsed extends RunEvent ? true : false, RunEvent extends Parsed ? true : false] = [true, true];
void _schemaMatchesType;
