/**
 * Rollouts on a pool of env servers (issue 24). Finding 2: one server's death aborted every
 * remaining episode, and the retry of an aborted slot ran on the same dead connection. Finding 3:
 * the success rate left aborted slots out silently (0.93 reported against a true 0.475).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer, type EnvServerHandle } from '../../servers/env-server/env-server.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { summarize, episodeResult } from '../../actors/summarize.ts';
import { getEnv } from '../../envs/index.ts';
import { poolEnvDefinition } from '../../transport/remote/pool-definition.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import type { EpisodeFinished, EpisodeOutcome } from '../../streams/events.ts';
import { counterDefinition } from '../fixtures/counter-env.ts';

const babyai = getEnv('babyai');
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(port = 0): Promise<EnvServerHandle> {
  const server = await startEnvServer({ port, resolveEnv: () => babyai });
  cleanups.push(() => server.close());
  return server;
}

describe('a rollout on a pool of env servers', () => {
  it('issue 24 finding 2: a server lost mid-run costs no slot; its episodes are retried on the live server, with the same results as in-process', async () => {
    const [a, b] = [await serve(), await serve()];
    const env = await poolEnvDefinition([a.url, b.url], 'babyai', { backoff: { initialMs: 10, maxMs: 50 } });
    cleanups.push(() => env.close());
    const options = { agent: 'random' as const, split: 'train' as const, episodes: 200, concurrency: 16, seed: 3 };
    const system = createRolloutSystem({ env, ...options });
    const finished: EpisodeFinished[] = [];
    let closing: Promise<void> | undefined;
    system.events.subscribe((event) => {
      if (event.type !== 'episode.finished') return;
      finished.push(event);
      if (finished.length === 40) closing = a.close();
    });
    const summary = await system.run();
    await closing;
    const lost = finished.filter((e) => e.outcome === 'aborted');
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((e) => e.abortReason === 'env_lost')).toBe(true);
    // Every slot settled once, scored; the retries ran on the live server.
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.abortedShare).toBe(0);
    expect(summary.attempts).toBe(200 + lost.length);
    expect(summary.abortReasons).toEqual({ env_lost: lost.length });
    const retried = new Set(lost.map((e) => e.slot));
    expect(summary.results.filter((r) => retried.has(r.slot)).every((r) => r.attempts > 1 && r.outcome !== 'aborted')).toBe(true);
    const local = await createRolloutSystem({ env: babyai, ...options }).run();
    expect(summary.results.map(({ attempts: _, ...r }) => r)).toEqual(local.results.map(({ attempts: _, ...r }) => r));
    expect(summary.successRate).toBe(local.successRate);
  });

  it('retries env_lost aborts on their own budget (maxLostRetries) on top of maxRetries, and reports every aborted attempt', async () => {
    // Every fresh env is "lost" at its second step: count-1 finishes in one step, the other slots never do.
    const summary = await createRolloutSystem({
      env: counterDefinition({ failAtStep: 2 }), agent: 'oracle', episodes: 4, concurrency: 1, maxRetries: 1, maxLostRetries: 3,
    }).run();
    expect(summary.outcomes).toEqual({ success: 1, failure: 0, truncated: 0, aborted: 3 });
    expect(summary.results.filter((r) => r.outcome === 'aborted').map((r) => [r.attempts, r.abortReason])).toEqual([
      [5, 'env_lost'], [5, 'env_lost'], [5, 'env_lost'],
    ]);
    expect(summary.attempts).toBe(1 + 3 * 5);
    expect(summary.abortedAttempts).toBe(15);
    expect(summary.abortReasons).toEqual({ env_lost: 15 });
  });
});

describe('issue 24 finding 3: outcomes reported without bias', () => {
  const output = (slot: number, outcome: EpisodeOutcome): EpisodeOutput => ({
    episodeId: `e${slot}`, taskId: `t${slot}`, slot, attempt: 0, outcome, reward: outcome === 'success' ? 1 : 0, turns: 2, maxTurns: 5,
    policyVersion: 0, firstObservation: 'o', trajectory: [],
    ...(outcome === 'aborted' ? { abortReason: 'env_lost' as const } : {}),
  });

  it('scores success over scored slots, and says beside it what the aborted and never-settled slots leave out', () => {
    // 10 slots given: 4 successes and 1 failure settled (the short successful ones finished first),
    // 3 aborted, 2 never settled (a stopped run). The old summary said 4/5 = 0.8 and nothing else.
    const settled = [
      ...[0, 1, 2, 3].map((slot) => episodeResult(output(slot, 'success'), 1)),
      episodeResult(output(4, 'failure'), 1),
      ...[5, 6, 7].map((slot) => episodeResult(output(slot, 'aborted'), 2)),
    ];
    const summary = summarize({
      env: 'counter', split: 'test', agent: 'random', seed: 0, settled, attempts: 11, slots: 10, steps: 10, horizon: 5, wallSeconds: 1,
      ledger: { started: 11, ended: 11, dropped: 0, violations: 0, outcomes: { success: 4, failure: 1, truncated: 0, aborted: 6 } },
    });
    expect(summary.successRate).toBe(0.8);
    expect(summary.episodes).toBe(8);
    expect(summary.abortedShare).toBe(0.5);
    expect(summary.successRange).toEqual({ low: 0.4, high: 0.9 });
    expect(summary.abortReasons).toEqual({ env_lost: 3 });
    expect(summary.results.find((r) => r.slot === 5)).toMatchObject({ outcome: 'aborted', abortReason: 'env_lost', attempts: 2 });
  });

  it('counts the slots a stopped rollout never settled in its aborted share', async () => {
    const system = createRolloutSystem({ env: counterDefinition({ stepDelayMs: 5 }), agent: 'oracle', episodes: 20, concurrency: 2 });
    system.events.subscribe((event) => event.type === 'episode.finished' && system.stop('test'));
    const summary = await system.run();
    expect(summary.slots).toBe(20);
    expect(summary.episodes).toBeLessThan(20);
    const scored = summary.outcomes.success + summary.outcomes.failure + summary.outcomes.truncated;
    expect(summary.abortedShare).toBe((20 - scored) / 20);
    expect(summary.successRange.high - summary.successRange.low).toBeCloseTo(summary.abortedShare, 12);
  });
});
