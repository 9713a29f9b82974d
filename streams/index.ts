/**
 * The typed run and training events: one zod schema per event, its type inferred from it
 * (docs/events.md lists every field). What carries them over a network (observeRun, the wire
 * codec) is in transport/.
 */
export {
  RolloutSummarySchema,
  RUN_EVENT_TYPES,
  RunEventSchema,
  type AbortReason,
  type AgentActed,
  type EnvStepped,
  type EpisodeFinished,
  type EpisodeOutcome,
  type EpisodeResult,
  type EpisodeStarted,
  type HorizonChanged,
  type OutcomeCounts,
  type RolloutSummary,
  type RunEvent,
  type RunEventType,
  type RunFinished,
  type RunStarted,
} from './events.ts';
export {
  TRAINING_EVENT_TYPES,
  TrainingEventSchema,
  type CheckpointSaved,
  type CurriculumDecided,
  type EvaluationFinished,
  type LearnerStepped,
  type TrainingEvent,
  type TrainingEventType,
  type TrainingFinished,
  type TrainingPaused,
  type TrainingResumed,
  type TrainingStarted,
} from './training-events.ts';
