/**
 * Issue 40, finding 1: the connection cap counted sockets that never authenticate, so 530 idle
 * sockets locked out 197 of 199 honest clients. Sockets still in their handshake now have their
 * own budget (oldest closed first, a per-address cap, a short deadline) and upgraded peers their
 * own cap; the full counts are bench/server-flood.ts's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spreadAddress, startIdleFlood, type IdleFlood } from '../../bench/flood-peers.ts';
import { startAgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { addressKey } from '../../servers/listener/pending-sockets.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { fakeCounterDefinition } from '../transport/agentgym-fake-env.ts';
import { request } from '../transport/agentgym-http-request.ts';
import { counterDefinition, resolver } from '../transport/fake-env.ts';
import { accepted, getJson, refusal } from '../transport/http-probe.ts';
import { until } from '../transport/raw-peer.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(options: Partial<Parameters<typeof startEnvServer>[0]> = {}) {
  const server = await startEnvServer({ port: 0, resolveEnv: resolver(counterDefinition()), token: 's3cret', ...options });
  cleanup.push(() => server.close());
  return server;
}

async function flood(port: number, count: number, from: 'one' | 'spread'): Promise<IdleFlood> {
  const idle = await startIdleFlood({ port, count, from });
  cleanup.push(() => idle.stop());
  return idle;
}

/** Connects with the token and plays one counter episode; true when it finished. */
async function honestEpisode(url: string): Promise<boolean> {
  const connection = await connectEnvServer(url, { token: 's3cret' }).catch(() => undefined);
  if (connection === undefined) return false;
  try {
    await connection.spec('counter');
    const env = connection.makeEnv('counter');
    await env.reset({ taskId: 'count-2' });
    await env.step('inc');
    return (await env.step('inc')).terminated;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

describe('the budget of unauthenticated connections (issue 40, finding 1)', () => {
  it('keys addresses as documented: IPv4 whole, IPv6 by /64, IPv4-mapped as IPv4', () => {
    expect(addressKey('127.3.4.5')).toBe('127.3.4.5');
    expect(addressKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(addressKey('2001:db8:0:1:aaaa::1')).toBe(addressKey('2001:0db8:0000:0001:ffff:1:2:3'));
    expect(addressKey('2001:db8:0:1::1')).not.toBe(addressKey('2001:db8:0:2::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(new Set(Array.from({ length: 300 }, (_, i) => spreadAddress(i))).size).toBe(300);
  });

  for (const from of ['one', 'spread'] as const) {
    it(`lets honest clients connect and finish past 200 idle sockets from ${from === 'one' ? 'one address' : '127.0.0.0/8'}`, async () => {
      // A pending cap of 32 (8 per address) so that 200 sockets are far past it.
      const server = await serve({ maxConnections: 16, maxPendingConnections: 32, maxPendingPerAddress: 8 });
      const idle = await flood(server.port, 200, from);
      let finished = 0;
      for (let i = 0; i < 8; i++) if (await honestEpisode(server.url)) finished++;
      expect(finished).toBe(8);
      // The idle sockets were closed for the budget, and the server never held more than it allows.
      expect(idle.closedByServer()).toBeGreaterThanOrEqual(200 - 32);
      expect(server.stats().tcpConnections).toBeLessThanOrEqual(16 + 4 * 32);
      expect((await getJson(server.url, '/readyz')).status).toBe(200);
    }, 20_000);
  }

  for (const from of ['one', 'spread'] as const) {
    it(`AgentGym HTTP: answers every honest request past 200 idle sockets from ${from === 'one' ? 'one address' : '127.0.0.0/8'}`, async () => {
      const server = await startAgentGymHttpServer({
        port: 0, definition: fakeCounterDefinition(), token: 's3cret', maxConnections: 16, maxPendingConnections: 32, maxPendingPerAddress: 8,
      });
      cleanup.push(() => server.close());
      const idle = await flood(server.port, 200, from);
      const auth = { authorization: 'Bearer s3cret' };
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const created = await request(`${server.url}/create`, { body: {}, headers: auth }).catch(() => ({ status: 0, json: undefined }));
        statuses.push(created.status);
        const id = (created.json as { id?: number } | undefined)?.id;
        if (id !== undefined) statuses.push((await request(`${server.url}/close`, { body: { id }, headers: auth }).catch(() => ({ status: 0 }))).status);
      }
      expect(statuses).toEqual(Array(40).fill(200));
      expect(idle.closedByServer()).toBeGreaterThanOrEqual(200 - 32);
      expect(server.stats()).toMatchObject({ instances: 0 });
    }, 20_000);
  }

  it('refuses an upgrade past maxConnections with 503 TOO_MANY_CONNECTIONS; idle sockets never count toward it', async () => {
    const server = await serve({ maxConnections: 3, maxPendingConnections: 8 });
    const idle = await startIdleFlood({ port: server.port, count: 40, from: 'one', reopen: false });
    cleanup.push(() => idle.stop());
    const auth = { Authorization: 'Bearer s3cret' };
    const peers = [await accepted(server.url, auth), await accepted(server.url, auth), await accepted(server.url, auth)];
    cleanup.push(() => peers.forEach((ws) => ws.terminate()));
    expect(await refusal(server.url, auth)).toMatchObject({ status: 503, body: { error: { code: 'TOO_MANY_CONNECTIONS' } } });
    expect(await getJson(server.url, '/readyz')).toMatchObject({ status: 503, body: { reason: 'at the connection limit', peers: 3 } });
    peers[0]?.terminate();
    await until(() => server.stats().connections === 2);
    const fourth = await accepted(server.url, auth);
    cleanup.push(() => fourth.terminate());
  });

  it('closes a wrong-token upgrade and an idle socket by the deadline, even when the peer never closes', async () => {
    const server = await serve({ handshakeTimeoutMs: 300 });
    const idle = await startIdleFlood({ port: server.port, count: 10, from: 'one', reopen: false });
    cleanup.push(() => idle.stop());
    // A refused upgrade whose peer keeps its end open: it must not linger outside any budget.
    const refused = await startIdleFlood({
      port: server.port, count: 5, from: 'spread', reopen: false, halfOpen: true,
      firstBytes: 'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    });
    cleanup.push(() => refused.stop());
    // The refused peers' own ends stay open (half-open), so the server's count is what tells.
    await until(() => idle.open() === 0 && server.stats().tcpConnections === 0, 5_000);
    expect(server.stats()).toMatchObject({ pendingConnections: 0, pendingClosed: 15 });
  });
});
