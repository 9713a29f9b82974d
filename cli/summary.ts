/** The human rendering of a RolloutSummary, as `rollout` prints it (for `eval` and `start`). */
import type { LlmUsage } from '../policy/llm/chat-types.ts';
import type { RolloutSummary } from '../streams/events.ts';
import { percent, table } from './output.ts';

export interface RolloutSummaryLabels {
  /**
   * The run went past --max-aborted: the success rate is labelled as over scored episodes only,
   * with the share of slots never scored beside it (issue 40, finding 7).
   */
  readonly scoredOnly?: boolean;
}

export function printRolloutSummary(summary: RolloutSummary, labels: RolloutSummaryLabels = {}): void {
  const { outcomes } = summary;
  const scoredOnly = labels.scoredOnly === true;
  console.log(
    `${summary.env} ${summary.split} split, agent ${summary.agent}, seed ${summary.seed}, horizon ${summary.horizon}\n` +
      table([
        // The rate over scored episodes, then the count of each outcome (the plural names a count).
        ['episodes', scoredOnly ? 'success rate (scored only)' : 'success rate', ...(scoredOnly ? ['never scored'] : []), 'mean reward', 'mean turns', 'successes', 'failures', 'truncated', 'aborted', 'steps/s'],
        [
          String(summary.episodes),
          percent(summary.successRate),
          ...(scoredOnly ? [`${percent(summary.abortedShare)} of ${summary.slots}`] : []),
          summary.meanReward.toFixed(3),
          summary.meanTurns.toFixed(2),
          String(outcomes.success),
          String(outcomes.failure),
          String(outcomes.truncated),
          String(outcomes.aborted),
          summary.stepsPerSecond.toFixed(0),
        ],
      ]),
  );
  // Success is over scored episodes; what that leaves out is said next to it (issue 24, finding 3).
  const unsettled = summary.slots - summary.episodes;
  console.log(
    `aborted share ${percent(summary.abortedShare)} of ${summary.slots} slots` +
      (unsettled > 0 ? ` (${unsettled} never settled)` : '') +
      ` · success over all slots between ${percent(summary.successRange.low)} and ${percent(summary.successRange.high)}` +
      ` · ${summary.attempts} attempts, ${summary.abortedAttempts} aborted`,
  );
}

/** An LLM agent's accounting, one line under the summary table. */
export function printLlmUsage(usage: LlmUsage): void {
  console.log(
    `LLM: ${usage.calls} calls (${usage.failedCalls} failed, ${usage.retries} retries), ` +
      `${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens, ` +
      `latency p50 ${(usage.latencyP50Ms / 1000).toFixed(2)} s, p95 ${(usage.latencyP95Ms / 1000).toFixed(2)} s, ` +
      `at most ${usage.maxInFlight} in flight`,
  );
}
