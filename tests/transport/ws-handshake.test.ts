/**
 * Issue 24, finding 5: idle TCP connections were never closed before auth, so a few hundred of
 * them exhausted file descriptors. Every connection now has a deadline to complete its upgrade
 * (or its HTTP request), and the server caps connections; an upgraded peer is not affected.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { counterDefinition, resolver } from './fake-env.ts';
import { getJson, openIdleSockets } from './http-probe.ts';
import { until } from './raw-peer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(options: Partial<Parameters<typeof startEnvServer>[0]> = {}) {
  const lines: Record<string, unknown>[] = [];
  const server = await startEnvServer({
    port: 0,
    resolveEnv: resolver(counterDefinition()),
    log: (event, fields) => lines.push({ event, ...fields }),
    ...options,
  });
  cleanup.push(() => server.close());
  return { server, lines };
}

describe('handshake deadline and connection cap (issue 24, finding 5)', () => {
  it('destroys connections that do not upgrade in time, idle or trickling headers, and keeps upgraded ones', async () => {
    // Room for all 40 in the pending budget, so each one goes by its deadline.
    const { server, lines } = await serve({ handshakeTimeoutMs: 300, maxPendingPerAddress: 64 });
    const connection = await connectEnvServer(server.url);
    cleanup.push(() => connection.close());
    const idle = await openIdleSockets(server.port, 20);
    const trickling = await openIdleSockets(server.port, 20, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n');
    await until(() => [...idle, ...trickling].every((s) => s.closed), 10_000);
    // node's own header deadline may take a trickling one first; the silent ones are all ours.
    expect(lines.filter((line) => line.event === 'limit.hit' && line.limit === 'handshake_timeout').length).toBeGreaterThanOrEqual(20);
    // The upgraded connection outlived the deadline and still works.
    await connection.spec('counter');
    const env = connection.makeEnv('counter');
    await env.reset({ taskId: 'count-2' });
    await env.step('inc');
    expect(await env.step('inc')).toMatchObject({ terminated: true, reward: 1 });
    expect(server.stats()).toMatchObject({ connections: 1, tcpConnections: 1 });
  });

  // Issue 40 split the cap: idle sockets have their own budget and never fill maxConnections.
  it('closes the oldest idle connection past maxPendingConnections and reports not ready only at the peer cap', async () => {
    const { server, lines } = await serve({ maxConnections: 1, maxPendingConnections: 4 });
    const held = await openIdleSockets(server.port, 6);
    await until(() => held.filter((s) => s.closed).length === 2); // the two oldest made room
    expect([held[0]?.closed, held[1]?.closed]).toEqual([true, true]);
    expect((await getJson(server.url, '/readyz')).status).toBe(200); // the probe is one more pending socket
    expect(lines).toContainEqual(expect.objectContaining({ event: 'limit.hit', limit: 'max_pending', max: 4 }));
    const connection = await connectEnvServer(server.url);
    cleanup.push(() => connection.close());
    expect(await getJson(server.url, '/readyz')).toMatchObject({ status: 503, body: { ready: false, reason: 'at the connection limit' } });
    await connection.close();
    for (const s of held) s.socket.destroy();
    await until(() => server.stats().tcpConnections === 0);
    expect((await getJson(server.url, '/readyz')).status).toBe(200);
  });
});
