/** The typed run events. What carries them over a network (observeRun, the wire codec) is in transport/. */
export type {
  AbortReason,
  AgentActed,
  EnvStepped,
  EpisodeFinished,
  EpisodeOutcome,
  EpisodeResult,
  EpisodeStarted,
  HorizonChanged,
  OutcomeCounts,
  RolloutSummary,
  RunEvent,
  RunEventType,
  RunFinished,
  RunStarted,
} from './events.ts';
