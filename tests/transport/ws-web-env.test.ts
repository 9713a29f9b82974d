/**
 * The web env over actorgym's WebSocket protocol (issue 27): `actorgym serve web` and a remote
 * oracle rollout, and a web instance that the env server closes in the middle of its reset (a
 * client that gave up, a call past its deadline) leaving no browser context behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { startChildServer, type ChildServer } from '../../bench/stats.ts';
import { getBrowserHost } from '../../envs/web/browser/browser-host.ts';
import { webDefinition } from '../../envs/web/index.ts';
import { remoteEnvDefinition } from '../../transport/remote/ws-client.ts';

// Chromium on a shared 2-core machine: a reset can take seconds, so calls get a wide deadline.
const CALL_TIMEOUT_MS = 60_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('actorgym serve web', () => {
  it('runs oracle episodes remotely: the oracle op answers from the server-side page', async () => {
    const server: ChildServer = await startChildServer(['web', '--port', '0']);
    cleanups.push(() => server.stop());
    const env = await remoteEnvDefinition(server.urls[0] as string, 'web', { callTimeoutMs: CALL_TIMEOUT_MS });
    cleanups.push(() => env.close());
    expect(env.spec.id).toBe('web');
    expect(env.spec.splits.test).toBe(webDefinition.spec.splits.test);
    expect(env.tasks('test')).toEqual(webDefinition.tasks('test'));

    // Two tasks of both sites: an answer, and a state change checked in the server's database.
    const test = webDefinition.tasks('test');
    const pick = ['shop/info/', 'forum/state/'].map((prefix) => test.find((id) => id.startsWith(prefix)));
    expect(pick.every((id) => id !== undefined)).toBe(true);
    const tasks = { train: [], test: pick as string[] };
    const summary = await createRolloutSystem({
      env: { ...env, tasks: (split) => (split === 'test-templates' ? [] : tasks[split]) },
      agent: 'oracle',
      split: 'test',
      episodes: 2,
      concurrency: 2,
      envTimeoutMs: CALL_TIMEOUT_MS,
    }).run();
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.results.map((r) => [r.taskId, r.outcome, r.reward])).toEqual(pick.map((id) => [id, 'success', 1]));
  }, 120_000);
});

describe('a web instance closed on the server during its reset', () => {
  it('releases the browser context the reset opened, and the other instances play on', async () => {
    const server = await startEnvServer({ port: 0, resolveEnv: () => webDefinition, callTimeoutMs: CALL_TIMEOUT_MS });
    cleanups.push(() => server.close());
    const env = await remoteEnvDefinition(server.url, 'web', { callTimeoutMs: CALL_TIMEOUT_MS });
    cleanups.push(() => env.close());
    const [first, second] = webDefinition.tasks('test');
    const host = getBrowserHost();

    const kept = env.make();
    cleanups.push(() => kept.close());
    const view = await kept.reset({ taskId: first! }); // the browser is up from here on
    expect(view.observation).toMatch(/^OBSERVATION:\n[\s\S]*\nURL: http[\s\S]*\nOBJECTIVE: .+\nPREVIOUS ACTION: None$/);
    const sessions = host.sessionCount;

    // `close` goes out right behind `reset`, so the server drops the instance mid-reset.
    const dropped = env.make();
    const reset = dropped.reset({ taskId: second! }).then(
      () => 'reset',
      (error: unknown) => String(error),
    );
    await dropped.close();
    await reset;
    await until(() => server.stats().instances === 1 && host.sessionCount === sessions);
    expect(host.sessionCount).toBe(sessions);

    // The kept instance still plays.
    const next = await kept.step('scroll [down]');
    expect(next.terminated).toBe(false);
    expect(next.observation).toContain('PREVIOUS ACTION: scroll [down]');
  }, 90_000);
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
}
