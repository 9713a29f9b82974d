// A rollout keeps a few numbers per settled slot for its summary, not the episodes' trajectories:
// a long rollout's memory must not grow with the observations it has seen.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { episodeResult, summarize } from '../../actors/summarize.ts';
import { getEnv } from '../../envs/index.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('rollout memory', () => {
  it('lets a finished episode trajectory be collected while the run goes on', async () => {
    let first: WeakRef<object> | undefined;
    let collected: boolean | undefined;
    const summary = await createRolloutSystem({
      env: getEnv('babyai'),
      agent: 'random',
      split: 'train',
      episodes: 40,
      concurrency: 4,
      seed: 3,
      onEpisode: (output) => {
        if (first === undefined) first = new WeakRef(output.trajectory);
        else if (collected === undefined && output.slot >= 30) {
          // A later job than the one that made the WeakRef, so only real references keep it alive.
          gc();
          collected = first.deref() === undefined;
        }
      },
    }).run();
    expect(summary.episodes).toBe(40);
    expect(collected).toBe(true);
  });

  it('summarizes from the per-slot results, in slot order', () => {
    const output = (slot: number, outcome: EpisodeOutput['outcome'], reward: number): EpisodeOutput => ({
      episodeId: `e${slot}`,
      taskId: `t${slot}`,
      slot,
      attempt: 0,
      outcome,
      reward,
      turns: 3,
      maxTurns: 5,
      policyVersion: 0,
      firstObservation: 'o',
      trajectory: [{ action: 'a', reward, observation: 'o', invalidAction: false }],
    });
    const settled = [episodeResult(output(1, 'failure', 0), 1), episodeResult(output(0, 'success', 0.8), 2), episodeResult(output(2, 'aborted', 0), 2)];
    expect(settled[0]).not.toHaveProperty('trajectory');
    const summary = summarize({
      env: 'babyai',
      split: 'test',
      agent: 'random',
      seed: 0,
      settled,
      attempts: 5,
      steps: 9,
      horizon: 5,
      wallSeconds: 1,
      ledger: { started: 5, ended: 5, dropped: 0, violations: 0, outcomes: { success: 1, failure: 1, truncated: 0, aborted: 3 } },
    });
    expect(summary.results.map((r) => r.slot)).toEqual([0, 1, 2]);
    expect(summary.results[0]).toEqual({ slot: 0, taskId: 't0', outcome: 'success', reward: 0.8, turns: 3, maxTurns: 5, attempts: 2 });
    expect(summary.outcomes).toEqual({ success: 1, failure: 1, truncated: 0, aborted: 1 });
    expect(summary.successRate).toBe(0.5);
    expect(summary.meanReward).toBeCloseTo(0.4);
  });
});
