/**
 * Issue 38: the service's run curricula on their own (no HTTP): a batch finishing after a later
 * step was asked for feeds nothing, the run count is bounded (least recently used evicted), an
 * idle run is forgotten, and a step's pooled stats are `rolloutStats` of the pooled results.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveRunCurricula } from '../../../actors/rollout-service/run-curricula.ts';
import { pooledStepStats } from '../../../actors/rollout-service/pooled-step-stats.ts';
import type { AdaptiveSchedule } from '../../../machines/schedule.ts';
import type { EpisodeResult, RolloutSummary } from '../../../streams/events.ts';

const schedule: AdaptiveSchedule = { kind: 'adaptive', min: 2, max: 6, step: 2, window: 2, trunc: 0.5 };

const result = (slot: number, outcome: EpisodeResult['outcome'], turns: number): EpisodeResult => ({ slot, taskId: `t${slot}`, outcome, reward: outcome === 'success' ? 1 : 0, turns, maxTurns: 2, attempts: 1 });
/** A batch summary with only what the pooling reads (its per-slot results and wall time). */
const summaryOf = (results: EpisodeResult[]) => ({ results, wallSeconds: 1 }) as unknown as RolloutSummary;
const truncated = () => summaryOf([result(0, 'truncated', 2), result(1, 'truncated', 2)]);

describe('AdaptiveRunCurricula', () => {
  it('raises after two all-truncated steps; a batch finishing after its step was decided feeds nothing', () => {
    const runs = new AdaptiveRunCurricula();
    expect(runs.open({ run: 'r', schedule, step: 1, tasks: 2 }).finished(truncated())).toBe(true);
    const late = runs.open({ run: 'r', schedule, step: 2, tasks: 2 });
    const s3 = runs.open({ run: 'r', schedule, step: 3, tasks: 2 });
    // Step 2's batch ends after step 3 was asked for: too late, and step 2 had nothing: no decision on it.
    expect(late.finished(truncated())).toBe(false);
    expect(s3.horizon).toBe(2);
    expect(s3.decision).toMatchObject({ step: 1, decision: 'hold' });
    expect(s3.finished(truncated())).toBe(true);
    const s4 = runs.open({ run: 'r', schedule, step: 4, tasks: 2 });
    expect(s4).toMatchObject({ horizon: 4, decision: { step: 3, decision: 'raise', to: 4 } });
  });

  it('keeps at most maxRuns (the least recently used goes) and forgets a run idle past idleMs', () => {
    let now = 0;
    const runs = new AdaptiveRunCurricula({ maxRuns: 2, idleMs: 1_000, now: () => now });
    runs.open({ run: 'x', schedule, step: 5, tasks: 1 });
    runs.open({ run: 'y', schedule, step: 5, tasks: 1 });
    runs.open({ run: 'x', schedule, step: 6, tasks: 1 });
    runs.open({ run: 'z', schedule, step: 1, tasks: 1 });
    expect(runs.size).toBe(2);
    // "x" was used after "y", so it was kept: step 1 goes backwards; "y" was evicted: step 1 is its first step again.
    expect(() => runs.open({ run: 'x', schedule, step: 1, tasks: 1 })).toThrow(/curriculum.step: step 1 is before step 6/);
    expect(() => runs.open({ run: 'y', schedule, step: 1, tasks: 1 })).not.toThrow();
    runs.open({ run: 'y', schedule, step: 3, tasks: 1 });
    now = 900;
    expect(() => runs.open({ run: 'y', schedule, step: 2, tasks: 1 })).toThrow(/curriculum.step/);
    // 2 s after "y" was last asked for (a refused ask does not count): forgotten, and "x", idle longer, with it.
    now = 2_000;
    expect(() => runs.open({ run: 'y', schedule, step: 2, tasks: 1 })).not.toThrow();
    expect(runs.size).toBe(1);
  });

  it('pools a step\'s batches into the stats training feeds (rolloutStats), plus its task groups', () => {
    const stats = pooledStepStats(3, 4, [
      { summary: summaryOf([result(0, 'success', 2), result(1, 'truncated', 4)]), tasks: 1 },
      { summary: summaryOf([result(0, 'failure', 3), result(1, 'truncated', 4)]), tasks: 1 },
    ]);
    expect(stats).toMatchObject({ horizon: 4, successRate: 0.25, truncationRate: 0.5, meanTurns: 13 / 4, successTurns: 2, episodes: 4, aborted: 0, groups: 2 });
  });
});
