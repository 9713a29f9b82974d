/**
 * Issue 24, "operable servers": one JSON line per connection event (`--log-json`), and the
 * attack tests' first case: no or a wrong token gets 401 and creates nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { counterDefinition, resolver } from '../transport/fake-env.ts';
import { refusal } from '../transport/http-probe.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';

const TOKEN = 'ops-token';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve() {
  const counter = counterDefinition();
  const written: string[] = [];
  const log = createOpsLog({ server: 'env', enabled: true, write: (line) => written.push(line), now: () => new Date(0) });
  const server = await startEnvServer({ port: 0, token: TOKEN, resolveEnv: resolver(counter), maxInstancesPerConnection: 1, log });
  cleanup.push(() => server.close());
  const lines = () => written.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { server, counter, written, lines };
}

describe('connection events as JSON lines', () => {
  it('refuses no or a wrong token with 401 before anything exists, and logs why', async () => {
    const { server, counter, lines } = await serve();
    expect((await refusal(server.url)).status).toBe(401);
    expect((await refusal(server.url, { Authorization: 'Bearer nope' })).status).toBe(401);
    expect((await refusal(`${server.url}/?token=nope`)).status).toBe(401);
    expect(server.stats()).toMatchObject({ connections: 0, instances: 0, frames: 0 });
    expect(counter.live.size).toBe(0);
    const refused = lines().filter((line) => line.event === 'connection.refused');
    expect(refused).toHaveLength(3);
    expect(refused[0]).toEqual({ t: '1970-01-01T00:00:00.000Z', server: 'env', event: 'connection.refused', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/), status: 401, reason: 'UNAUTHORIZED' });
  });

  it('logs opened (peer, origin), authenticated, limit hit and closed (code, instances), one line each', async () => {
    const { server, written, lines } = await serve();
    const peer = await RawPeer.open(server.url, { token: TOKEN });
    await peer.call({ id: 1, op: 'create', env: 'counter' });
    expect(await peer.call({ id: 2, op: 'create', env: 'counter' })).toMatchObject({ error: { code: 'TOO_MANY_INSTANCES' } });
    peer.ws.close(1000);
    await peer.closed;
    await until(() => lines().some((line) => line.event === 'connection.closed'));
    expect(await refusal(server.url, { Origin: 'https://evil.example', Authorization: `Bearer ${TOKEN}` })).toMatchObject({ status: 403 });

    const events = lines().map(({ event, ...fields }) => ({ event, ...fields }));
    const name = expect.stringMatching(/^127\.0\.0\.1:\d+$/);
    expect(events).toEqual([
      expect.objectContaining({ event: 'connection.opened', peer: name }),
      expect.objectContaining({ event: 'connection.authenticated', peer: name, auth: 'token' }),
      expect.objectContaining({ event: 'limit.hit', limit: 'instances_per_connection', peer: name }),
      expect.objectContaining({ event: 'connection.closed', peer: name, code: 1000, instances: 1 }),
      expect.objectContaining({ event: 'connection.opened', origin: 'https://evil.example' }),
      expect.objectContaining({ event: 'connection.refused', status: 403, reason: 'FORBIDDEN_ORIGIN' }),
    ]);
    expect(written.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
  });
});
