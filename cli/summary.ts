/** The human rendering of a RolloutSummary, as `rollout` prints it (for `eval` and `start`). */
import type { RolloutSummary } from '../streams/events.ts';
import { percent, table } from './output.ts';

export function printRolloutSummary(summary: RolloutSummary): void {
  const { outcomes } = summary;
  console.log(
    `${summary.env} ${summary.split} split, agent ${summary.agent}, seed ${summary.seed}, horizon ${summary.horizon}\n` +
      table([
        ['episodes', 'success', 'mean reward', 'mean turns', 'success', 'failure', 'truncated', 'aborted', 'steps/s'],
        [
          String(summary.episodes),
          percent(summary.successRate),
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
}
