/**
 * The client-side pool of env servers (transport/remote/ws-pool.ts), against real in-process servers
 * on port 0. Issue 24, finding 2: one env-server death used to abort every remaining episode —
 * no reconnect, a restarted server never used again, and a retry "on a fresh env" opened on the
 * same dead connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startEnvServer, type EnvServerHandle } from '../../servers/env-server/env-server.ts';
import { EnvError } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import { backoffDelay, RECONNECT_BACKOFF } from '../../transport/remote/backoff.ts';
import { poolEnvDefinition, type PoolEnvDefinition } from '../../transport/remote/pool-definition.ts';
import type { PooledEnv } from '../../transport/remote/pooled-env.ts';
import type { PoolEvent } from '../../transport/remote/ws-pool.ts';
import { parseRemoteUrls, resolveEnvDefinition } from '../../transport/resolve-env.ts';

const babyai = getEnv('babyai');
const task = babyai.tasks('test')[0] as string;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(port = 0, token?: string): Promise<EnvServerHandle> {
  const server = await startEnvServer({ port, resolveEnv: () => babyai, ...(token ? { token } : {}) });
  cleanups.push(() => server.close());
  return server;
}

/** A pool with fast reconnects, recording its events. */
async function pool(urls: string[], options: { serverWaitMs?: number } = {}) {
  const events: PoolEvent[] = [];
  const waiters: { match: (e: PoolEvent) => boolean; resolve: () => void }[] = [];
  const definition = await poolEnvDefinition(urls, 'babyai', {
    backoff: { initialMs: 10, maxMs: 50 },
    ...options,
    onEvent: (event) => {
      events.push(event);
      for (const waiter of waiters.filter((w) => w.match(event))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  cleanups.push(() => definition.close());
  const next = (type: PoolEvent['type'], url: string) =>
    new Promise<void>((resolve) => waiters.push({ match: (e) => e.type === type && e.url === url, resolve }));
  return { definition, events, next };
}

const resetAll = (envs: PooledEnv[]) => Promise.all(envs.map((env, i) => env.reset({ taskId: task, seed: i })));
const make = (definition: PoolEnvDefinition, count: number) => Array.from({ length: count }, () => definition.make() as PooledEnv);
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe('a pool of env servers', () => {
  it('places each new instance on the least-loaded live server', async () => {
    const [a, b] = [await serve(), await serve()];
    const { definition } = await pool([a.url, b.url]);
    const envs = make(definition, 6);
    await resetAll(envs);
    expect(definition.stats().map((s) => s.load)).toEqual([3, 3]);
    expect([a.stats().instances, b.stats().instances]).toEqual([3, 3]);
    for (const env of envs.filter((e) => e.server === a.url).slice(0, 2)) await env.close();
    expect(definition.stats().map((s) => s.load)).toEqual([1, 3]);
    const next = make(definition, 2);
    await resetAll(next);
    expect(next.map((env) => env.server)).toEqual([a.url, a.url]);
  });

  it('issue 24 finding 2: fails the lost server\'s instances with ENV_LOST, places new ones on the live server, and uses a restarted server again', async () => {
    const a = await serve();
    const b = await serve();
    const { definition, next } = await pool([a.url, b.url]);
    const envs = make(definition, 4);
    await resetAll(envs);
    const onA = envs.filter((env) => env.server === a.url);
    expect(onA).toHaveLength(2);

    const lost = next('server.lost', a.url);
    await a.close();
    await lost;
    for (const env of onA) {
      const error = await rejection(env.step('turn left'));
      expect(error).toBeInstanceOf(EnvError);
      expect((error as EnvError).code).toBe('ENV_LOST');
    }
    // The retry "on a fresh env" runs on the live server, never on the dead connection.
    const fresh = make(definition, 3);
    await resetAll(fresh);
    expect(fresh.map((env) => env.server)).toEqual([b.url, b.url, b.url]);

    // Restarted on the same port: the pool reconnects and places instances there again.
    const back = next('server.connected', a.url);
    const restarted = await serve(a.port);
    await back;
    const later = make(definition, 2);
    await resetAll(later);
    expect(later.map((env) => env.server)).toEqual([a.url, a.url]);
    expect(restarted.stats().instances).toBe(2);
    // And an instance on the crowded server moves over at its next reset, as episodes start.
    const crowded = fresh[0] as PooledEnv;
    await crowded.reset({ taskId: task });
    expect(crowded.server).toBe(a.url);
    expect(definition.stats().find((s) => s.url === a.url)).toMatchObject({ state: 'live', connects: 2, losses: 1 });
  });

  it('holds a placement while no server is connected, and gives it to a server that comes back', async () => {
    const a = await serve();
    const { definition, next } = await pool([a.url], { serverWaitMs: 60_000 });
    const lost = next('server.lost', a.url);
    await a.close();
    await lost;
    expect(definition.isReachable()).toBe(false);
    const env = definition.make() as PooledEnv;
    const reset = env.reset({ taskId: task });
    const reachable = definition.whenReachable();
    await serve(a.port);
    await reachable;
    await expect(reset).resolves.toMatchObject({ observation: expect.any(String) });
    expect(env.server).toBe(a.url);
  });

  it('fails placements with ENV_LOST once no server has been connected for serverWaitMs', async () => {
    const a = await serve();
    const { definition, next } = await pool([a.url], { serverWaitMs: 50 });
    const lost = next('server.lost', a.url);
    await a.close();
    await lost;
    const error = await rejection((definition.make() as PooledEnv).reset({ taskId: task }));
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).code).toBe('ENV_LOST');
    expect((error as EnvError).message).toMatch(/no env server reachable within 50 ms: ws:\/\/127\.0\.0\.1:\d+ (down|connecting)/);
  });

  it('refuses to start when no server answers, or when one refuses the token', async () => {
    const unreachable = await rejection(poolEnvDefinition(['ws://127.0.0.1:1'], 'babyai'));
    expect(unreachable).toMatchObject({ code: 'ENV_LOST', message: expect.stringMatching(/cannot connect to ws:\/\/127\.0\.0\.1:1/) });
    const [open, locked] = [await serve(), await serve(0, 'secret')];
    const refused = await rejection(poolEnvDefinition([open.url, locked.url], 'babyai', { token: 'wrong' }));
    expect(refused).toMatchObject({ code: 'PROTOCOL_ERROR', message: expect.stringMatching(/^UNAUTHORIZED/) });
  });

  it('reads --remote as comma-separated ws:// URLs', () => {
    expect(parseRemoteUrls('ws://a:8100, ws://b:8100,')).toEqual(['ws://a:8100', 'ws://b:8100']);
    expect(() => parseRemoteUrls('http://a:8100')).toThrow(/ws:\/\/ or wss:\/\//);
    expect(() => parseRemoteUrls(' , ')).toThrow(/at least one/);
  });
});

describe('reconnect backoff', () => {
  it('doubles its ceiling up to maxMs, and draws each delay from the upper half of it', () => {
    const ceilings = [0, 1, 2, 3, 6, 10, 50].map((attempt) => backoffDelay(attempt, RECONNECT_BACKOFF, () => 1));
    expect(ceilings).toEqual([100, 200, 400, 800, 2_000, 2_000, 2_000]);
    expect(backoffDelay(3, RECONNECT_BACKOFF, () => 0)).toBe(400);
  });
});

describe('issue 24 finding 9: --env-timeout reaches the start-up calls', () => {
  it('times out a server that accepts the connection but never answers spec', async () => {
    const silent = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => new Promise((resolve) => silent.close(resolve)));
    await new Promise((resolve) => silent.once('listening', resolve));
    silent.on('connection', (socket) => socket.on('error', () => undefined));
    const url = `ws://127.0.0.1:${(silent.address() as { port: number }).port}`;
    // Before the fix the connection kept its fixed 30 s deadline here, past this test's timeout.
    const error = await rejection(resolveEnvDefinition({ env: 'babyai', remote: url, envTimeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'ENV_TIMEOUT', message: expect.stringMatching(/^spec got no reply within 200 ms/) });
  }, 10_000);
});
