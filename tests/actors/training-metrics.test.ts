// Issue 25, item 5: a learner step's rollout numbers carry what the adaptive curriculum's noise-aware
// collapse test reads — episode counts and the mean turns of successful episodes only.
import { describe, expect, it } from 'vitest';
import type { CollectedStep } from '../../learner/collected-step.ts';
import { summarize } from '../../actors/summarize.ts';
import { rolloutStats } from '../../actors/training/metrics.ts';
import { stepSignals } from '../../machines/adaptive-horizon.ts';
import type { EpisodeResult } from '../../streams/events.ts';

const result = (slot: number, outcome: EpisodeResult['outcome'], turns: number): EpisodeResult =>
  ({ slot, taskId: `t${Math.floor(slot / 2)}`, outcome, reward: outcome === 'success' ? 1 : 0, turns, maxTurns: 10, attempts: 1 });

function step(results: readonly EpisodeResult[]): CollectedStep {
  const summary = summarize({
    env: 'test', split: 'train', agent: 'test', seed: 0, settled: results, attempts: results.length, steps: 0, horizon: 10, wallSeconds: 1,
    ledger: { started: results.length, ended: results.length, dropped: 0, violations: 0, outcomes: { success: 0, failure: 0, truncated: 0, aborted: 0 } },
  });
  return { step: 1, horizon: 10, episodes: [], summary, rounds: 1, seconds: 1 };
}

describe('rolloutStats', () => {
  it('gives the mean turns of successful episodes beside the mean over all of them', () => {
    const stats = rolloutStats(step([result(0, 'success', 3), result(1, 'truncated', 10), result(2, 'success', 5), result(3, 'failure', 6)]));
    expect(stats).toMatchObject({ successRate: 0.5, meanTurns: 6, successTurns: 4, truncationRate: 0.25, episodes: 4, aborted: 0 });
    expect(stepSignals(1, { ...stats, groups: 2 })).toMatchObject({ successTurns: 4, finished: 4, groups: 2 });
  });

  it('leaves successTurns out when no episode succeeded, and counts only finished episodes', () => {
    const stats = rolloutStats(step([result(0, 'truncated', 10), result(1, 'aborted', 0), result(2, 'failure', 4)]));
    expect(stats).not.toHaveProperty('successTurns');
    expect(stats).toMatchObject({ episodes: 3, aborted: 1 });
    expect(stepSignals(1, stats)).toMatchObject({ successTurns: null, finished: 2, groups: null });
  });
});
