/**
 * Issue 24, "operable servers": a drain stops new work at once (upgrades and `/readyz` 503,
 * `create` and `reset` SERVER_DRAINING), lets episodes under way finish, answers a call still
 * running at the deadline with SERVER_DRAINING, and closes every peer with 1001.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { counterDefinition, resolver } from '../transport/fake-env.ts';
import { getJson, refusal } from '../transport/http-probe.ts';
import { RawPeer } from '../transport/raw-peer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup() {
  const counter = counterDefinition();
  const server = await startEnvServer({ port: 0, resolveEnv: resolver(counter) });
  cleanup.push(() => server.close());
  const peer = await RawPeer.open(server.url);
  cleanup.push(() => peer.close());
  const instance = (await peer.call({ id: 1, op: 'create', env: 'counter' })).result.instance as string;
  return { server, counter, peer, instance };
}

describe('env server drain', () => {
  it('stops new work at once and lets the episode under way finish before closing with 1001', async () => {
    const { server, counter, peer, instance } = await setup();
    const idle = await RawPeer.open(server.url);
    cleanup.push(() => idle.close());
    await peer.call({ id: 2, op: 'reset', instance, taskId: 'count-2' });

    const drained = server.drain(60_000);
    expect(server.stats().draining).toBe(true);
    expect(await getJson(server.url, '/readyz')).toMatchObject({ status: 503, body: { reason: 'draining' } });
    expect(await refusal(server.url)).toMatchObject({ status: 503, body: { error: { code: 'SERVER_DRAINING' } } });
    expect(await idle.call({ id: 1, op: 'create', env: 'counter' })).toMatchObject({ error: { code: 'SERVER_DRAINING' } });
    expect(await idle.call({ id: 2, op: 'spec', env: 'counter' })).toMatchObject({ op: 'result' });

    expect(await peer.call({ id: 3, op: 'step', instance, action: 'inc' })).toMatchObject({ result: { terminated: false } });
    expect(await peer.call({ id: 4, op: 'step', instance, action: 'inc' })).toMatchObject({ result: { terminated: true } });
    // The episode is over: the drain does not wait for its deadline.
    await drained;
    expect(await peer.closed).toBe(1001);
    expect(await idle.closed).toBe(1001);
    expect(counter.live.size).toBe(0);
  });

  it('refuses a new episode on an existing instance while draining', async () => {
    const { server, peer, instance } = await setup();
    const busy = (await peer.call({ id: 2, op: 'create', env: 'counter' })).result.instance as string;
    await peer.call({ id: 3, op: 'reset', instance: busy, taskId: 'count-1' }); // keeps the drain waiting
    const drained = server.drain(60_000);
    expect(await peer.call({ id: 4, op: 'reset', instance, taskId: 'count-2' })).toMatchObject({ error: { code: 'SERVER_DRAINING' } });
    expect(await peer.call({ id: 5, op: 'step', instance: busy, action: 'inc' })).toMatchObject({ result: { terminated: true } });
    await drained;
    expect(await peer.closed).toBe(1001);
  });

  it('answers a call still running at the drain deadline with SERVER_DRAINING, then closes', async () => {
    const { server, counter, peer, instance } = await setup();
    await peer.call({ id: 2, op: 'reset', instance, taskId: 'count-2' });
    peer.send({ id: 3, op: 'step', instance, action: 'sleep:60000' });
    const drained = server.drain(50);
    expect(await peer.next()).toMatchObject({ op: 'error', id: 3, error: { code: 'SERVER_DRAINING' } });
    await drained;
    expect(await peer.closed).toBe(1001);
    expect(counter.live.size).toBe(0);
  });
});
