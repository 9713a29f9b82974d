import type { EpisodeOutput } from '../machines/episode.machine.ts';
import type { LedgerCounts } from '../machines/rollout-buffer.machine.ts';
import type { EpisodeResult, OutcomeCounts, RolloutSummary } from '../streams/events.ts';
import type { Split } from '../envs/contract.ts';

export interface SummaryInput {
  readonly env: string;
  readonly split: Split;
  readonly agent: string;
  readonly seed: number;
  /** One result per settled slot, in any order (`episodeResult` of each slot's last attempt). */
  readonly settled: readonly EpisodeResult[];
  readonly attempts: number;
  readonly steps: number;
  readonly horizon: number;
  readonly wallSeconds: number;
  readonly ledger: LedgerCounts;
}

/**
 * What the summary keeps of a settled slot: a few numbers, not the episode's trajectory, so a long
 * rollout holds no observations in memory until its end.
 */
export function episodeResult(output: EpisodeOutput, attempts: number): EpisodeResult {
  return {
    slot: output.slot,
    taskId: output.taskId,
    outcome: output.outcome,
    reward: output.reward,
    turns: output.turns,
    maxTurns: output.maxTurns,
    attempts,
  };
}

/**
 * Rates are over episodes that were not aborted: an infrastructure failure says nothing about
 * the agent, so it is reported in `outcomes.aborted` instead of being scored as a failure.
 */
export function summarize(input: SummaryInput): RolloutSummary {
  const results = [...input.settled].sort((a, b) => a.slot - b.slot);
  const outcomes: OutcomeCounts = { success: 0, failure: 0, truncated: 0, aborted: 0 };
  for (const result of results) outcomes[result.outcome] += 1;
  const scored = results.filter((result) => result.outcome !== 'aborted');
  const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  if (input.ledger.started !== input.ledger.ended || input.ledger.violations > 0) {
    throw new Error(
      `ledger mismatch: ${input.ledger.started} episodes started, ${input.ledger.ended} ended, ${input.ledger.violations} violations`,
    );
  }
  return {
    env: input.env,
    split: input.split,
    agent: input.agent,
    seed: input.seed,
    episodes: results.length,
    attempts: input.attempts,
    successRate: scored.length === 0 ? 0 : outcomes.success / scored.length,
    meanReward: mean(scored.map((result) => result.reward)),
    meanTurns: mean(scored.map((result) => result.turns)),
    outcomes,
    horizon: input.horizon,
    wallSeconds: input.wallSeconds,
    stepsPerSecond: input.wallSeconds > 0 ? input.steps / input.wallSeconds : 0,
    results,
  };
}
