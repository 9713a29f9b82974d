/**
 * The episode's record as one zod schema per shape: what an agent decides, each turn as the
 * trajectory keeps it, and the episode's output. The episode machine speaks these types
 * (`z.infer`red here), the policy returns `AgentDecision`s, the eval and the demos write
 * `EpisodeOutput`s to disk, and `episodes.jsonl` is parsed back with these schemas.
 */
import { z } from 'zod';
import { AbortReasonSchema, EpisodeOutcomeSchema } from './outcome.ts';

const tokens = z.array(z.int()).readonly();
const numbers = z.array(z.number()).readonly();

/** An LLM turn's accounting, as the trajectory keeps it (policy/llm/ produces it). */
export const TurnUsageSchema = z
  .object({
    promptTokens: z.int().min(0),
    completionTokens: z.int().min(0),
    latencyMs: z.number().min(0),
    retries: z.int().min(0),
    /** The model's reply, verbatim. */
    reply: z.string(),
    /** Set when the reply named no action by the env family's rules (the model is told on its next turn). */
    formatError: z.string().exactOptional(),
  })
  .readonly();
/** An LLM turn's accounting as the trajectory keeps it: tokens, latency, retries, the reply and any format error. */
export type TurnUsage = z.infer<typeof TurnUsageSchema>;

/** What the agent chose, with the tokens and log-probs that produced it when the policy has them. */
export const AgentDecisionSchema = z
  .object({
    action: z.string(),
    /** Token ids the policy sampled for this action (including its end-of-action token). */
    tokenIds: tokens.exactOptional(),
    /** Log-probabilities of `tokenIds` under the policy that sampled them. */
    logProbs: numbers.exactOptional(),
    /** An LLM turn's accounting (tokens, latency, retries, the reply); kept in the trajectory. */
    usage: TurnUsageSchema.exactOptional(),
    /**
     * Set when the policy cannot act in this episode any more (its context window is full): the
     * episode ends `truncated` with the reward so far, like a horizon, and `action` is not sent.
     */
    exhausted: z.string().exactOptional(),
  })
  .readonly();
export type AgentDecision = z.infer<typeof AgentDecisionSchema>;

/** One turn as the episode records it: the decision carried out and what the env answered. */
export const EpisodeTurnSchema = z
  .object({
    action: z.string(),
    reward: z.number(),
    observation: z.string(),
    invalidAction: z.boolean(),
    tokenIds: tokens.exactOptional(),
    logProbs: numbers.exactOptional(),
    /** An LLM turn's tokens, latency, retries and reply (policy/llm/chat-types.ts). */
    usage: TurnUsageSchema.exactOptional(),
  })
  .readonly();
export type EpisodeTurn = z.infer<typeof EpisodeTurnSchema>;

/** A finished episode: its identity, outcome, totals and every turn. */
export const EpisodeOutputSchema = z
  .object({
    episodeId: z.string(),
    taskId: z.string(),
    /** Index of the task slot in the run; retries of a slot share it. */
    slot: z.int(),
    /** 0 for the first attempt, 1.. for retries after an abort. */
    attempt: z.int().min(0),
    outcome: EpisodeOutcomeSchema,
    /** Total reward; 0 for aborted episodes, which are never trained on. */
    reward: z.number(),
    turns: z.int().min(0),
    maxTurns: z.int().min(0),
    policyVersion: z.int().min(0),
    /** The reset observation, which holds the instruction. */
    firstObservation: z.string(),
    trajectory: z.array(EpisodeTurnSchema).readonly(),
    /** Set for `aborted`: what failed, and the error message. */
    abortReason: AbortReasonSchema.exactOptional(),
    error: z.string().exactOptional(),
    /** Set for a `truncated` episode the policy ended (AgentDecision.exhausted): why. */
    exhausted: z.string().exactOptional(),
  })
  .readonly();
export type EpisodeOutput = z.infer<typeof EpisodeOutputSchema>;
