/**
 * What picks actions. The agent actor gathers the act requests that arrive together and hands
 * them to `act` as one batch; a policy that keeps per-episode state (a transformer's context and
 * KV cache) drops it on `release`.
 */
import type { AgentDecision } from '../machines/episode-record.ts';

/** One episode's request for a decision: its id, turn, the observation and the actions it may take. */
export interface ActRequest {
  readonly episodeId: string;
  /** 0-based turn index within the episode. */
  readonly turn: number;
  /** The latest observation; at turn 0 it is the reset observation, which holds the instruction. */
  readonly observation: string;
  /** Actions the env lists as available now, when it lists them. */
  readonly availableActions?: readonly string[];
  /** Per-episode sampling seed, so a decision does not depend on which batch it landed in. */
  readonly seed: number;
}

/**
 * What the policy chose for one request: the action, and the tokens, log-probs and LLM accounting
 * that produced it when it has them. It is the episode machine's `AgentDecision`, one zod schema in
 * machines/episode-record.ts, since the episode records exactly what the policy returns.
 */
export type Decision = AgentDecision;

/** One episode as the policy saw it, token in and token out (DESIGN: multi-turn token layout). */
export interface TokenTrajectory {
  readonly tokens: readonly number[];
  /** 1 on agent tokens (including the closing end-of-action token), 0 elsewhere. */
  readonly mask: readonly number[];
  /** Sampling log-prob on agent tokens, 0 elsewhere. */
  readonly logProbs: readonly number[];
  /**
   * Log-prob under the distribution each agent token was actually drawn from (the allowed tokens
   * only, sampling.ts `sampledLogProb`), 0 elsewhere; recorded by policies that constrain their
   * decoding. Asynchronous training's behaviour policy with constrainedLoss (learner/behaviour-correction.ts).
   */
  readonly sampledLogProbs?: readonly number[];
  /**
   * When the episode outgrew the context, every window in order (the fields above are the last).
   * Each sampled token has mask 1 in exactly the window it was sampled in (policy/context-window.ts),
   * so a learner trains on all windows.
   */
  readonly windows?: readonly TokenTrajectory[];
}

/** What picks actions: `act` decides for a batch of episodes at once, `release` drops an episode's state, `version` names the weights that decided. */
export interface Policy {
  readonly name: string;
  /**
   * True when decisions are independent calls that bound their own concurrency (an LLM endpoint):
   * the agent actor then hands each request over as soon as it arrives, so no episode waits for
   * another's reply. Otherwise requests that arrive together form one batch, one batch at a time
   * (a transformer decodes them in one pass).
   */
  readonly concurrent?: boolean;
  /** Version of the weights that produce decisions; 0 for policies without weights. */
  readonly version: number;
  act(batch: readonly ActRequest[]): Promise<readonly Decision[]>;
  /** The episode has ended: drop its state; returns its token record when the policy keeps one. */
  release(episodeId: string): TokenTrajectory | undefined;
}
