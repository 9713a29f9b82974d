/**
 * How an episode ends, and why an aborted one was: domain types the episode machine and the
 * rollout buffer speak. They live here so that machines/ owns them and imports nothing from
 * streams/; streams/events.ts builds the event schemas from these (zod is pure data, no I/O).
 */
import { z } from 'zod';

/** How an episode ended (DESIGN "The episode"): only `aborted` is never trained on. */
export const EpisodeOutcomeSchema = z.enum(['success', 'failure', 'truncated', 'aborted']);
/** How an episode ended: `success`, `failure`, `truncated` (the horizon ran out) or `aborted` (infrastructure failed). */
export type EpisodeOutcome = z.infer<typeof EpisodeOutcomeSchema>;

/** Why an episode was aborted: infrastructure, never the agent. */
export const AbortReasonSchema = z.enum(['env_lost', 'env_timeout', 'env_error', 'agent_timeout', 'agent_error', 'protocol_error', 'cancelled']);
/** Why infrastructure ended an episode (`env_lost`, `env_timeout`, `env_error`, `agent_timeout`, `agent_error`, `protocol_error`, `cancelled`); an aborted episode is never scored. */
export type AbortReason = z.infer<typeof AbortReasonSchema>;

/** Episodes per outcome. */
export const OutcomeCountsSchema = z.object({
  success: z.int().min(0),
  failure: z.int().min(0),
  truncated: z.int().min(0),
  aborted: z.int().min(0),
});
/** Episodes per outcome. */
export type OutcomeCounts = z.infer<typeof OutcomeCountsSchema>;
