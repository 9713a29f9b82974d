/**
 * Issue 24, finding 5: limits held per connection only (8 connections × 1,024 instances; 8 peers
 * that never read grew the server from 262 to 733 MB) and the rate limit could never trigger.
 * Now a total instance cap, an outbound budget over all peers, and a bucket that closes a
 * flooding connection, each leaving the other clients alone.
 */
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { remoteEnvDefinition } from '../../transport/remote/ws-client.ts';
import { counterDefinition, playWithOracle, resolver } from '../transport/fake-env.ts';
import { getJson } from '../transport/http-probe.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(options: Partial<Parameters<typeof startEnvServer>[0]> = {}) {
  const counter = counterDefinition();
  // An env whose task list is large, so each `tasks` reply is ~70 KB: a cheap way to make output.
  const wideTasks = Array.from({ length: 5_000 }, (_, i) => `task-${String(i).padStart(6, '0')}`);
  const wide = { ...counterDefinition({ id: 'wide' }), tasks: () => wideTasks };
  const server = await startEnvServer({ port: 0, resolveEnv: resolver(counter, wide), ...options });
  cleanup.push(() => server.close());
  return { server, counter };
}

async function peer(url: string): Promise<RawPeer> {
  const opened = await RawPeer.open(url);
  cleanup.push(() => opened.close());
  return opened;
}

describe('server-wide limits (issue 24, finding 5)', () => {
  it('caps instances over all connections with TOO_MANY_INSTANCES and reports not ready at the cap', async () => {
    const { server, counter } = await serve({ maxInstances: 3, maxInstancesPerConnection: 2 });
    const [a, b, c] = [await peer(server.url), await peer(server.url), await peer(server.url)];
    const create = (p: RawPeer, id: number) => p.call({ id, op: 'create', env: 'counter' });
    const first = await create(a, 1);
    await create(a, 2);
    expect(await create(a, 3)).toMatchObject({ error: { code: 'TOO_MANY_INSTANCES', message: expect.stringContaining('this connection') } });
    expect(await create(b, 4)).toMatchObject({ op: 'result' });
    expect(await create(b, 5)).toMatchObject({ error: { code: 'TOO_MANY_INSTANCES', message: expect.stringContaining('this server holds 3') } });
    expect(await create(c, 6)).toMatchObject({ error: { code: 'TOO_MANY_INSTANCES' } });
    expect(server.stats().instances).toBe(3);
    expect(counter.live.size).toBe(3);
    expect(await getJson(server.url, '/readyz')).toMatchObject({ status: 503, body: { reason: 'at the instance limit', instances: 3 } });

    expect(await a.call({ id: 7, op: 'close', instance: first.result.instance })).toMatchObject({ op: 'result' });
    expect(await create(c, 8)).toMatchObject({ op: 'result' });
    await a.close(); // its instance goes with it
    await until(() => server.stats().instances === 2);
    expect((await getJson(server.url, '/readyz')).status).toBe(200);
  });

  // Issue 40: such peers are first held back (their frames wait until they read), so the total
  // holds instead of being reached; the heartbeat then drops them, as they answer no ping.
  it('holds back peers that never read within the outbound budget, then drops them; memory stays bounded', async () => {
    const total = 8 * 1024 * 1024;
    const { server } = await serve({ maxTotalBufferedBytes: total, heartbeatMs: 400 });
    const honest = await remoteEnvDefinition(server.url, 'counter');
    cleanup.push(() => honest.close());
    const before = process.memoryUsage();
    let peakArrayBuffers = before.arrayBuffers;
    const sample = () => (peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers));

    // 8 peers each ask for 400 replies of ~70 KB (28 MB each, 220 MB in all) and read none of them.
    const frame = JSON.stringify({ id: 1, op: 'tasks', env: 'wide', split: 'train' });
    const stuck = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const ws = new WebSocket(server.url, { perMessageDeflate: false });
        ws.on('error', () => {});
        await new Promise((resolve) => ws.once('open', resolve));
        ws.pause(); // never reads again
        cleanup.push(async () => ws.terminate());
        return { ws };
      }),
    );
    for (let round = 0; round < 8; round++) {
      for (const { ws } of stuck) for (let i = 0; i < 50; i++) if (ws.readyState === WebSocket.OPEN) ws.send(frame);
      await new Promise((resolve) => setImmediate(resolve));
      sample();
    }
    await until(() => {
      sample();
      return server.stats().connections === 1;
    }, 20_000);

    // The server's own account: within the budget plus a reply in flight per peer.
    console.info(`never-reading peers: peak ${server.stats().peakBufferedBytes} B buffered, array buffers +${peakArrayBuffers - before.arrayBuffers} B`);
    expect(server.stats().peakBufferedBytes).toBeLessThan(total + 8 * 100_000);
    expect(server.stats().bufferedBytes).toBeLessThan(64 * 1024);
    // What the process holds in buffers: generous, far below the 220 MB the peers asked for.
    expect(peakArrayBuffers - before.arrayBuffers).toBeLessThan(96 * 1024 * 1024);
    // Another client is served all along.
    const counter = counterDefinition();
    expect(await playWithOracle(honest, honest.make(), 'count-3')).toEqual(await playWithOracle(counter, counter.make(), 'count-3'));
  }, 60_000);

  it('answers a flooding connection RATE_LIMITED, then closes it with 1008; another connection is unaffected', async () => {
    // A frozen clock: the bucket never refills, so the counts are exact.
    const { server, counter } = await serve({ rateLimit: { perSecond: 1_000, burst: 50, closeAfter: 100 }, now: () => 0 });
    const honest = await remoteEnvDefinition(server.url, 'counter');
    cleanup.push(() => honest.close());
    const flooder = await peer(server.url);
    const replies: any[] = [];
    flooder.ws.on('message', (data) => replies.push(JSON.parse(data.toString())));
    for (let id = 0; id < 500; id++) flooder.send({ id, op: 'spec', env: 'counter' });
    expect(await flooder.closed).toBe(1008);
    expect(replies.filter((reply) => reply.op === 'result')).toHaveLength(50);
    expect(replies.filter((reply) => reply.error?.code === 'RATE_LIMITED')).toHaveLength(99);
    expect(server.stats()).toMatchObject({ policyCloses: 1, rateLimited: 100 });

    expect(await playWithOracle(honest, honest.make(), 'count-4')).toEqual(await playWithOracle(counter, counter.make(), 'count-4'));
  });
});
