/** The typed run events and the WebSocket streams that carry them. */
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
export { observeRun } from './observe-run.ts';
