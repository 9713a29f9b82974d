/**
 * How an episode ends, and why an aborted one was: domain types the episode machine and the
 * rollout buffer speak. They live here so that machines/ owns them and imports nothing from
 * streams/; streams/events.ts re-exports them for the events that carry them.
 */
export type EpisodeOutcome = 'success' | 'failure' | 'truncated' | 'aborted';

/** Why an episode was aborted: infrastructure, never the agent. */
export type AbortReason =
  | 'env_lost'
  | 'env_timeout'
  | 'env_error'
  | 'agent_timeout'
  | 'agent_error'
  | 'protocol_error'
  | 'cancelled';

/** Episodes per outcome. */
export interface OutcomeCounts {
  success: number;
  failure: number;
  truncated: number;
  aborted: number;
}
