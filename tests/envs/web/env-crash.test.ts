/**
 * A browser crash mid-episode (issue 27's acceptance), through the rollout system: Chromium is
 * SIGKILLed after the first step of a run's episodes; the episodes it held end `aborted` with
 * `env_lost` and the browser's reason (never scored as failures), their retries run on a
 * relaunched browser, and every slot ends solved. browser-host.test.ts covers the host alone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../../actors/rollout-system.ts';
import { getBrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { chromiumBrowserPids } from '../../../envs/web/browser/processes.ts';
import { closeSharedSites, webDefinition } from '../../../envs/web/index.ts';
import type { EpisodeFinished } from '../../../streams/events.ts';
import { runBrowserTests } from './fixtures/chromium.ts';

// Three and seven oracle steps: the kill after the first step lands mid-episode in both.
const TASKS = ['shop/nav/category-page/3', 'forum/state/upvote/68'];

describe.skipIf(!runBrowserTests)('web env: browser crash mid-episode', () => {
  afterAll(async () => {
    await getBrowserHost().close();
    await closeSharedSites();
  });

  it('ends the running episodes aborted (env_lost, with the reason), retries them on a relaunched browser, and the run recovers', async () => {
    const host = getBrowserHost();
    const launchesBefore = host.launchCount;
    const system = createRolloutSystem({
      env: webDefinition,
      agent: 'oracle',
      slots: TASKS.map((taskId, key) => ({ taskId, key })),
      concurrency: 2,
      seed: 1,
      // No lost-server retries (those are for remote env pools): the one general retry must do.
      maxRetries: 1,
      maxLostRetries: 0,
      // Deadlines are not under test: a loaded CI machine must not turn a slow reset into an abort.
      envTimeoutMs: 120_000,
    });
    const finished: EpisodeFinished[] = [];
    let killed: number | undefined;
    system.events.subscribe((event) => {
      if (event.type === 'episode.finished') finished.push(event);
      if (event.type === 'env.stepped' && killed === undefined) {
        const pids = chromiumBrowserPids();
        expect(pids).toHaveLength(1);
        killed = pids[0]!;
        process.kill(killed, 'SIGKILL');
      }
    });
    const summary = await system.run();

    expect(killed).toBeTypeOf('number');
    const aborted = finished.filter((e) => e.outcome === 'aborted');
    expect(aborted.length).toBeGreaterThanOrEqual(1);
    for (const episode of aborted) {
      expect(episode).toMatchObject({ attempt: 0, abortReason: 'env_lost', reward: 0 });
      expect(episode.error).toMatch(/ENV_LOST: .*the browser crashed/);
    }
    // Every slot ends solved: the aborted ones on their retry, in a browser launched after the kill.
    expect(summary.outcomes).toEqual({ success: 2, failure: 0, truncated: 0, aborted: 0 });
    expect(summary.results.map((r) => [r.taskId, r.outcome, r.attempts])).toEqual(
      TASKS.map((taskId) => [taskId, 'success', aborted.some((e) => e.taskId === taskId) ? 2 : 1]),
    );
    expect(summary).toMatchObject({ abortedAttempts: aborted.length, abortReasons: { env_lost: aborted.length } });
    expect(host.launchCount).toBeGreaterThanOrEqual(launchesBefore + 2);
    expect(chromiumBrowserPids()).not.toContain(killed);
  }, 180_000);
});
