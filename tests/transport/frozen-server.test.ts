/**
 * Issue 40, finding 4: a frozen env server (SIGSTOPped: its sockets stay open, nothing answers)
 * must not stall a pool. A call that misses its deadline makes the server suspect at once —
 * retries and new instances go elsewhere — and a probe that gets no pong drops it; a server that
 * is only slow answers the probe and is used again. The cost in wall time is measured by
 * `npx actorgym bench frozen-server`, not asserted here.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { ServerFleet } from '../../bench/chaos-fleet.ts';
import { getEnv } from '../../envs/index.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { poolEnvDefinition } from '../../transport/remote/pool-definition.ts';
import type { PoolEvent } from '../../transport/remote/ws-pool.ts';

describe('a server that misses a call deadline', () => {
  const servers: WebSocketServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  /** A server that never replies to a call; it answers pings or not (`autoPong`). */
  async function silentServer(autoPong: boolean): Promise<string> {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong });
    servers.push(server);
    await once(server, 'listening');
    return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('is suspect at once, and trusted again when it answers the probe (slow, not frozen)', async () => {
    const connection = await connectEnvServer(await silentServer(true), { callTimeoutMs: 200, probeMs: 2_000, heartbeatMs: 0 });
    const seen: [boolean, string][] = [];
    connection.onSuspect!((suspect, why) => seen.push([suspect, why]));
    await expect(connection.tasks('babyai', 'train')).rejects.toMatchObject({ code: 'ENV_TIMEOUT' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toEqual([[true, 'tasks got no reply within 200 ms'], [false, 'answered a probe']]);
    expect(connection.closed).toBe(false);
    await connection.close();
  });

  it('is dropped when the probe gets no pong (frozen), with the reason on the lost error', async () => {
    const connection = await connectEnvServer(await silentServer(false), { callTimeoutMs: 200, probeMs: 300, heartbeatMs: 0 });
    const suspects: boolean[] = [];
    connection.onSuspect!((suspect) => suspects.push(suspect));
    const lost = new Promise<Error>((resolve) => connection.onLost(resolve));
    await expect(connection.tasks('babyai', 'train')).rejects.toMatchObject({ code: 'ENV_TIMEOUT' });
    expect((await lost).message).toMatch(/tasks got no reply within 200 ms, and the server did not answer a probe within 300 ms/);
    expect(suspects).toEqual([true]);
    expect(connection.closed).toBe(true);
  });
});

describe('a rollout on three servers, one of them SIGSTOPped mid-run', () => {
  let fleet: ServerFleet | undefined;
  afterAll(async () => {
    await fleet?.stop();
  });

  it('moves off the frozen server at its first missed deadline, drops it after the probe, and settles every slot as an undisturbed run', async () => {
    fleet = await ServerFleet.start(3);
    const frozen = fleet.urls[0]!;
    const events: (PoolEvent & { at: number })[] = [];
    const env = await poolEnvDefinition(fleet.urls, 'babyai', { callTimeoutMs: 1_000, probeMs: 500, onEvent: (e) => events.push({ ...e, at: Date.now() }) });
    const EPISODES = 90;
    let finished = 0;
    let placedAtSuspect: number | undefined;
    const system = createRolloutSystem({ env, agent: 'random', split: 'train', episodes: EPISODES, concurrency: 9, seed: 5, maxRetries: 3, maxLostRetries: 5 });
    system.events.subscribe((e) => {
      if (e.type !== 'episode.finished') return;
      // Freeze the first server once the run is under way, with episodes on every server.
      if (++finished === 10) fleet!.signal(0, 'SIGSTOP');
    });
    const watch = setInterval(() => {
      if (placedAtSuspect === undefined && events.some((e) => e.type === 'server.suspect' && e.url === frozen)) placedAtSuspect = env.pool.stats()[0]!.placed;
    }, 5);
    const summary = await system.run();
    clearInterval(watch);
    // The run may end before the probe's time is up: thawed before it, the server would answer it.
    for (let waited = 0; waited < 10_000 && !events.some((e) => e.url === frozen && e.type === 'server.lost'); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    fleet.signal(0, 'SIGCONT');
    const stats = env.pool.stats();
    await env.close?.();

    const mine = events.filter((e) => e.url === frozen && e.type !== 'server.connected').map((e) => e.type);
    expect(mine.slice(0, 2), JSON.stringify(events)).toEqual(['server.suspect', 'server.lost']);
    expect(events.find((e) => e.url === frozen && e.type === 'server.lost')?.detail).toMatch(/did not answer a probe within 500 ms/);
    // Nothing new went to it once it was suspect (it may have reconnected after SIGCONT, at the very end).
    expect(placedAtSuspect).toBeDefined();
    expect(stats[0]!.placed).toBe(placedAtSuspect);
    // The episodes it held were aborted and retried elsewhere; every slot settled once, as undisturbed.
    expect(summary.abortedAttempts).toBeGreaterThan(0);
    const undisturbed = await createRolloutSystem({ env: getEnv('babyai'), agent: 'random', split: 'train', episodes: EPISODES, concurrency: 9, seed: 5 }).run();
    const outcome = (r: { slot: number; outcome: string; reward: number; turns: number }) => [r.slot, r.outcome, r.reward, r.turns];
    expect(summary.results.map(outcome)).toEqual(undisturbed.results.map(outcome));
  }, 90_000);
});
