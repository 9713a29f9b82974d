import { filter, firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import type { Policy } from '../../policy/policy.ts';
import type { EpisodeFinished, EpisodeStarted, RunEvent } from '../../streams/events.ts';
import { counterDefinition } from '../fixtures/counter-env.ts';

describe('createRolloutSystem', () => {
  it('runs the whole split by default and summarises it', async () => {
    const summary = await createRolloutSystem({ env: counterDefinition(), agent: 'oracle', seed: 1 }).run();
    expect(summary).toMatchObject({ env: 'counter', split: 'test', agent: 'oracle', episodes: 10, attempts: 10, successRate: 1 });
    expect(summary.outcomes).toEqual({ success: 10, failure: 0, truncated: 0, aborted: 0 });
    // Task count-k takes k oracle turns; the test split holds k = 1..5 twice.
    expect(summary.meanTurns).toBe(3);
    expect(summary.results.map((r) => r.slot)).toEqual([...Array(10).keys()]);
  });

  it('replays the same per-episode results for the same seed, whatever the concurrency', async () => {
    const runWith = (seed: number, concurrency: number) =>
      createRolloutSystem({ env: counterDefinition(), agent: 'random', seed, concurrency, episodes: 30 }).run();
    const a = await runWith(5, 1);
    const b = await runWith(5, 8);
    const c = await runWith(6, 8);
    expect(b.results).toEqual(a.results);
    expect(c.results).not.toEqual(a.results);
  });

  it('streams typed events: started, acted, stepped, finished for every episode, then run.finished', async () => {
    const system = createRolloutSystem({ env: counterDefinition(), agent: 'oracle', episodes: 4, concurrency: 2 });
    const all = firstValueFrom(system.events.pipe(toArray()));
    await system.run();
    const events = await all;
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)?.type).toBe('run.finished');
    const finished = events.filter((e): e is EpisodeFinished => e.type === 'episode.finished');
    expect(finished).toHaveLength(4);
    const acted = events.filter((e) => e.type === 'agent.acted').length;
    const stepped = events.filter((e) => e.type === 'env.stepped').length;
    expect(acted).toBe(finished.reduce((n, e) => n + e.turns, 0));
    expect(stepped).toBe(acted);
    for (const event of events) expect(typeof event.t).toBe('number');
  });

  it('applies a horizon change mid-run to episodes that start after it, not to running ones', async () => {
    // count-5 needs 5 turns; slow steps keep the first wave running while the horizon changes.
    const env = counterDefinition({ stepDelayMs: 5 });
    const system = createRolloutSystem({ env, agent: 'oracle', schedule: 'scaling:[3,8]@1', episodes: 10, concurrency: 3 });
    const events: RunEvent[] = [];
    let changed = false;
    system.events.subscribe((event) => {
      events.push(event);
      if (!changed && event.type === 'env.stepped') {
        changed = true;
        system.curriculum.send({ type: 'LEARNER.STEPPED', step: 1 });
      }
    });
    await system.run();
    const change = events.findIndex((e) => e.type === 'horizon.changed');
    expect(events[change]).toMatchObject({ from: 3, to: 8, step: 2 });
    const started = events.map((e, i) => [e, i] as const).filter((p): p is [EpisodeStarted, number] => p[0].type === 'episode.started');
    const before = started.filter(([, i]) => i < change).map(([e]) => e);
    const after = started.filter(([, i]) => i > change).map(([e]) => e);
    expect(before.length).toBe(3);
    expect(before.every((e) => e.maxTurns === 3)).toBe(true);
    expect(after.length).toBe(7);
    expect(after.every((e) => e.maxTurns === 8)).toBe(true);
    // The running ones kept their horizon to the end: the count-4 and count-5 tasks among them truncated at 3.
    const finished = events.filter((e): e is EpisodeFinished => e.type === 'episode.finished');
    for (const e of before) expect(finished.find((f) => f.episodeId === e.episodeId)?.maxTurns).toBe(3);
    expect(finished.filter((f) => f.maxTurns === 8).every((f) => f.outcome === 'success')).toBe(true);
  });

  it('aborts an episode whose env is lost, retries it on a fresh env slot, and never scores the loss', async () => {
    // Lost-server retries off (issue 24 adds them, tested in env-pool.test.ts): the general retry only.
    const summary = await createRolloutSystem({ env: counterDefinition({ failAtStep: 2 }), agent: 'oracle', episodes: 5, concurrency: 1, maxLostRetries: 0 }).run();
    // Every fresh env fails at its second step: count-1 succeeds, the others abort twice (first try + one retry).
    expect(summary.outcomes).toEqual({ success: 1, failure: 0, truncated: 0, aborted: 4 });
    expect(summary.attempts).toBe(1 + 4 * 2);
    expect(summary.successRate).toBe(1);
    expect(summary.results.filter((r) => r.outcome === 'aborted').every((r) => r.reward === 0 && r.attempts === 2)).toBe(true);
  });

  it('aborts on an agent deadline instead of waiting forever', async () => {
    const hung: Policy = { name: 'hung', version: 0, act: () => new Promise(() => {}), release: () => undefined };
    const system = createRolloutSystem({ env: counterDefinition(), agent: hung, episodes: 2, agentTimeoutMs: 20, maxRetries: 0 });
    const finished = firstValueFrom(system.events.pipe(filter((e) => e.type === 'episode.finished'), toArray()));
    const summary = await system.run();
    expect(summary.outcomes.aborted).toBe(2);
    expect((await finished).map((e) => (e as EpisodeFinished).abortReason)).toEqual(['agent_timeout', 'agent_timeout']);
  });

  it('aborts on an env deadline, and the run goes on with the other slots', async () => {
    const system = createRolloutSystem({ env: counterDefinition({ stepDelayMs: 400 }), agent: 'oracle', episodes: 3, envTimeoutMs: 25, maxRetries: 0 });
    const finished = firstValueFrom(system.events.pipe(filter((e) => e.type === 'episode.finished'), toArray()));
    const summary = await system.run();
    expect(summary.outcomes).toEqual({ success: 0, failure: 0, truncated: 0, aborted: 3 });
    expect((await finished).map((e) => (e as EpisodeFinished).abortReason)).toEqual(['env_timeout', 'env_timeout', 'env_timeout']);
  });

  it('stops on request: running episodes end as cancelled aborts and run() resolves', async () => {
    const system = createRolloutSystem({ env: counterDefinition({ stepDelayMs: 20 }), agent: 'oracle', episodes: 10, concurrency: 2 });
    system.events.pipe(filter((e) => e.type === 'env.stepped')).subscribe(() => system.stop('test'));
    const summary = await system.run();
    expect(summary.outcomes.aborted).toBeGreaterThan(0);
    expect(summary.episodes).toBeLessThan(10);
  });

  it("fails run() with the env's error when an env cannot be made, after cancelling the running episodes", async () => {
    const definition = counterDefinition({ stepDelayMs: 5 });
    let made = 0;
    const make = definition.make;
    // Three envs are needed at the start; the third cannot be made.
    const system = createRolloutSystem({
      env: { ...definition, make: () => (++made > 2 ? (() => { throw new Error('env server refused'); })() : make()) },
      agent: 'oracle',
      episodes: 6,
      concurrency: 3,
    });
    const finished: EpisodeFinished[] = [];
    let streamError: unknown;
    system.events.subscribe({ next: (e) => e.type === 'episode.finished' && finished.push(e), error: (error) => (streamError = error) });
    await expect(system.run()).rejects.toThrow('env server refused');
    expect(String(streamError)).toMatch(/env server refused/);
    expect(made).toBe(3);
    // The two episodes that did start were cancelled, not left running.
    expect(finished.map((e) => [e.slot, e.outcome, e.abortReason])).toEqual([
      [0, 'aborted', 'cancelled'],
      [1, 'aborted', 'cancelled'],
    ]);
  });

  // Issue 26: episodes were created inside the run's action, and xstate's dev build warned
  // ("Custom actions should not call `assign()` directly") once per episode.
  it('starts episodes outside the run actor\'s actions: no xstate warning, same launch order', async () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const system = createRolloutSystem({ env: counterDefinition(), agent: 'random', episodes: 12, concurrency: 4, seed: 3 });
      const started = firstValueFrom(system.events.pipe(filter((e): e is EpisodeStarted => e.type === 'episode.started'), toArray()));
      await system.run();
      expect((await started).map((e) => e.slot)).toEqual([...Array(12).keys()]);
      expect(warn.mock.calls.filter(([message]) => String(message).includes('should not call'))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('rejects bad options with clear errors', () => {
    expect(() => createRolloutSystem({ env: counterDefinition(), agent: 'random', schedule: 'fixed:0' })).toThrow(/out of range/);
    expect(() => createRolloutSystem({ env: counterDefinition(), agent: 'random', episodes: 0 })).toThrow(/positive integer/);
    const { oracle: _, ...noOracle } = counterDefinition();
    expect(() => createRolloutSystem({ env: noOracle, agent: 'oracle' })).toThrow(/no oracle/);
  });
});
