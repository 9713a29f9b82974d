import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { counterDefinition, resolver } from './fake-env.ts';
import { RawPeer, until } from './raw-peer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(options: Partial<Parameters<typeof startEnvServer>[0]> = {}) {
  const counter = counterDefinition();
  const server = await startEnvServer({ port: 0, resolveEnv: resolver(counter), ...options });
  let closed = false;
  cleanup.push(async () => void (closed || (await server.close())));
  return { server, counter, close: async () => ((closed = true), server.close()) };
}

/** A bare ws server that accepts connections and then misbehaves as told. */
async function rogueServer(onConnection: (ws: import('ws').WebSocket) => void, autoPong = true) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong });
  await new Promise((resolve) => wss.once('listening', resolve));
  wss.on('connection', onConnection);
  cleanup.push(async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise((resolve) => wss.close(resolve));
  });
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
}

describe('connection loss', () => {
  it('rejects pending and later calls with ENV_LOST promptly when the server closes', async () => {
    const { server, counter, close } = await setup();
    const connection = await connectEnvServer(server.url);
    await connection.spec('counter');
    const env = connection.makeEnv('counter');
    await env.reset({ taskId: 'count-2' });
    const pending = env.step('sleep:30000').catch((error: unknown) => error);
    await until(() => server.stats().frames >= 4); // spec, create, reset, step
    const started = Date.now();
    await close();
    expect(await pending).toMatchObject({ code: 'ENV_LOST', message: expect.stringContaining('1001') });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(connection.closed).toBe(true);
    await expect(env.step('inc')).rejects.toMatchObject({ code: 'ENV_LOST' });
    await expect(connection.tasks('counter', 'train')).rejects.toMatchObject({ code: 'ENV_LOST' });
    expect(counter.live.size).toBe(0); // the server closed the instance with the connection
    await env.close(); // closing a lost env is quiet
    await connection.close();
  });

  it('rejects pending calls with ENV_LOST when the server drops the socket without a close frame', async () => {
    const url = await rogueServer((ws) => ws.on('message', () => ws.terminate()));
    const connection = await connectEnvServer(url);
    await expect(connection.spec('counter')).rejects.toMatchObject({ code: 'ENV_LOST', message: expect.stringContaining('1006') });
    await connection.close();
  });

  it('rejects a reply that does not match the schema with PROTOCOL_ERROR', async () => {
    const url = await rogueServer((ws) =>
      ws.on('message', (data) => {
        const { id } = JSON.parse(data.toString());
        ws.send(JSON.stringify({ op: 'result', id, result: { spec: { id: 3 }, hasOracle: 'yes' } }));
      }),
    );
    const connection = await connectEnvServer(url);
    await expect(connection.spec('counter')).rejects.toMatchObject({ code: 'PROTOCOL_ERROR' });
    await connection.close();
  });

  it('drops a server that stops answering pings (client heartbeat)', async () => {
    const url = await rogueServer(() => {}, false);
    const connection = await connectEnvServer(url, { heartbeatMs: 30 });
    const error = await connection.spec('counter').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ENV_LOST', message: expect.stringContaining('heartbeat') });
    expect(connection.closed).toBe(true);
  });
});

describe('deadlines', () => {
  it('rejects a call past the client deadline with ENV_TIMEOUT; the connection stays usable', async () => {
    const { server, counter } = await setup();
    const connection = await connectEnvServer(server.url, { callTimeoutMs: 100 });
    cleanup.push(() => connection.close());
    await connection.spec('counter');
    const slow = connection.makeEnv('counter');
    await slow.reset({ taskId: 'count-1' });
    const started = Date.now();
    await expect(slow.step('sleep:10000')).rejects.toMatchObject({ code: 'ENV_TIMEOUT' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(Date.now() - started).toBeLessThan(1_000);
    const fast = connection.makeEnv('counter');
    await fast.reset({ taskId: 'count-1' });
    expect((await fast.step('inc')).terminated).toBe(true);
    await slow.close(); // the server closes it although its step still runs
    await fast.close();
    expect(counter.live.size).toBe(0);
  });

  it('answers ENV_TIMEOUT from the server when an env call outlives callTimeoutMs, and drops the instance', async () => {
    const { server, counter } = await setup({ callTimeoutMs: 80 });
    const connection = await connectEnvServer(server.url);
    cleanup.push(() => connection.close());
    await connection.spec('counter');
    const env = connection.makeEnv('counter');
    await env.reset({ taskId: 'count-1' });
    await expect(env.step('sleep:10000')).rejects.toMatchObject({ code: 'ENV_TIMEOUT' });
    expect(server.stats()).toMatchObject({ timeouts: 1, instances: 0 });
    expect(counter.live.size).toBe(0);
    await expect(env.step('inc')).rejects.toMatchObject({ code: 'ENV_LOST', message: expect.stringContaining('INSTANCE_UNKNOWN') });
  });
});

describe('heartbeat and ownership', () => {
  it('terminates a peer that does not answer pings, and keeps one that does', async () => {
    const { server } = await setup({ heartbeatMs: 100 });
    const silent = await RawPeer.open(server.url, { autoPong: false });
    const alive = await RawPeer.open(server.url);
    cleanup.push(() => alive.close());
    expect(await silent.closed).toBe(1006);
    await new Promise((resolve) => setTimeout(resolve, 300)); // several heartbeats
    expect(await alive.call({ id: 1, op: 'spec', env: 'counter' })).toMatchObject({ op: 'result' });
    expect(server.stats().connections).toBe(1);
  });

  it('closes every instance of a connection when it closes, cleanly or not', async () => {
    const { server, counter } = await setup();
    const connection = await connectEnvServer(server.url);
    await connection.spec('counter');
    const envs = Array.from({ length: 10 }, () => connection.makeEnv('counter'));
    await Promise.all(envs.map((env) => env.reset({ taskId: 'count-3' })));
    expect(counter.live.size).toBe(10);
    await connection.close();
    await until(() => counter.live.size === 0);
    await expect(envs[0]!.step('inc')).rejects.toMatchObject({ code: 'ENV_LOST' });

    const peer = await RawPeer.open(server.url);
    for (let id = 0; id < 5; id++) await peer.call({ id, op: 'create', env: 'counter' });
    expect(counter.live.size).toBe(5);
    peer.ws.terminate();
    await until(() => counter.live.size === 0 && server.stats().instances === 0);
  });
});
