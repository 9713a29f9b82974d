import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer, type EnvServerHandle } from '../../servers/env-server/env-server.ts';
import { EnvError } from '../../envs/contract.ts';
import { connectEnvServer, remoteEnvDefinition, type EnvServerConnection } from '../../transport/remote/ws-client.ts';
import { counterDefinition, playWithOracle, resolver } from './fake-env.ts';
import { RawPeer } from './raw-peer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(options: Partial<Parameters<typeof startEnvServer>[0]> = {}) {
  const counter = counterDefinition();
  const plain = counterDefinition({ id: 'plain', oracle: false });
  const server = await startEnvServer({ port: 0, resolveEnv: resolver(counter, plain), ...options });
  cleanup.push(() => server.close());
  return { server, counter, plain };
}

async function connect(server: EnvServerHandle, options: Parameters<typeof connectEnvServer>[1] = {}) {
  const connection = await connectEnvServer(server.url, options);
  cleanup.push(() => connection.close());
  return connection;
}

describe('env server round trip', () => {
  it('reset/step/close over WebSocket equal the in-process results, info fields included', async () => {
    const { server, counter } = await serve();
    const remote = await remoteEnvDefinition(server.url, 'counter');
    cleanup.push(() => remote.close());

    expect(remote.spec).toEqual(counter.spec);
    expect(remote.tasks('train')).toEqual(counter.tasks('train'));
    expect(remote.tasks('test')).toEqual(counter.tasks('test'));

    const actions = ['noop', 'fly', 'inc', 'dec', 'inc', 'inc', 'inc'];
    const run = async (env: ReturnType<typeof counter.make>) => {
      const results: unknown[] = [await env.reset({ taskId: 'count-3', seed: 42 })];
      for (const action of actions) results.push(await env.step(action));
      results.push(await env.reset({ taskId: 'count-1' })); // re-reset without a seed
      results.push(await env.step('inc'));
      await env.close();
      return results;
    };
    const local = await run(counter.make());
    const viaWire = await run(remote.make());
    expect(viaWire).toEqual(local);
    expect(server.stats().instances).toBe(0);
  });

  it('serves the oracle, so an oracle agent plays remotely exactly as locally', async () => {
    const { server, counter } = await serve();
    const remote = await remoteEnvDefinition(server.url, 'counter');
    cleanup.push(() => remote.close());
    expect(remote.oracle).toBeTypeOf('function');
    const local = await playWithOracle(counter, counter.make(), 'count-5');
    const env = remote.make();
    expect(await playWithOracle(remote, env, 'count-5')).toEqual(local);
    await env.close();
  });

  it('omits the oracle of an env that has none, and the oracle op answers NO_ORACLE', async () => {
    const { server } = await serve();
    const remote = await remoteEnvDefinition(server.url, 'plain');
    cleanup.push(() => remote.close());
    expect(remote.oracle).toBeUndefined();
    const env = remote.make();
    await env.reset({ taskId: 'count-2' });
    const error = await remote.connection.oracle(env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvError);
    expect(error).toMatchObject({ code: 'PROTOCOL_ERROR', message: expect.stringContaining('NO_ORACLE') });
  });

  it('runs many concurrent instances over one connection and over several connections', async () => {
    const { server, counter } = await serve();
    const connections: EnvServerConnection[] = [];
    for (let i = 0; i < 4; i++) {
      const connection = await connect(server);
      await connection.spec('counter');
      connections.push(connection);
    }
    const episodes = Array.from({ length: 64 }, async (_, i) => {
      const connection = connections[i % connections.length]!;
      const env = connection.makeEnv('counter');
      const target = (i % 8) + 1;
      await env.reset({ taskId: `count-${target}`, seed: i });
      let steps = 0;
      for (;;) {
        const result = await env.step(await connection.oracle(env));
        steps++;
        if (result.terminated) {
          expect(result.reward).toBe(1);
          break;
        }
      }
      return { steps, target, env };
    });
    const done = await Promise.all(episodes);
    for (const { steps, target } of done) expect(steps).toBe(target);
    expect(server.stats()).toMatchObject({ connections: 4, instances: 64 });
    expect(counter.live.size).toBe(64);
    await Promise.all(done.map(({ env }) => env.close()));
    expect(server.stats().instances).toBe(0);
    expect(counter.live.size).toBe(0);
  });

  it('queues requests while the socket is backed up and delivers every one (backpressure)', async () => {
    const { server } = await serve({ maxPayload: 2 * 1024 * 1024 });
    const connection = await connect(server);
    await connection.spec('counter');
    const envs = Array.from({ length: 32 }, () => connection.makeEnv('counter'));
    await Promise.all(envs.map((env) => env.reset({ taskId: 'count-1' })));
    // 32 × 512 KiB of actions at once is 16 times the client's 1 MiB high-water mark.
    const results = await Promise.all(envs.map((env, i) => env.step(`${i}`.padEnd(512 * 1024, '.'))));
    results.forEach((result, i) => {
      expect(result.info.invalidAction).toBe(true);
      expect(result.observation.startsWith(`cannot "${i}.`)).toBe(true);
    });
  });
});

describe('env server errors', () => {
  it('maps env errors to EnvError codes and keeps serving after an env exception', async () => {
    const { server } = await serve();
    const connection = await connect(server);
    await expect(connection.spec('nope')).rejects.toMatchObject({ code: 'ENV_UNKNOWN' });
    await connection.spec('counter');
    const env = connection.makeEnv('counter');
    await expect(env.step('inc')).rejects.toMatchObject({ code: 'ENV_NOT_RESET' });
    await expect(env.reset({ taskId: 'count-99x' })).rejects.toMatchObject({ code: 'TASK_UNKNOWN' });
    await env.reset({ taskId: 'count-2' });
    await expect(env.step('throw')).rejects.toMatchObject({ code: 'ENV_INTERNAL', message: 'the counter broke' });
    expect((await env.step('inc')).observation).toBe('count=1');
    await env.close();
    await expect(env.step('inc')).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    expect(() => connection.makeEnv('plain')).toThrow(/fetch the spec/);
  });

  it('limits instances per connection with TOO_MANY_INSTANCES', async () => {
    const { server } = await serve({ maxInstancesPerConnection: 2 });
    const connection = await connect(server);
    await connection.spec('counter');
    const envs = [0, 1, 2].map(() => connection.makeEnv('counter'));
    await envs[0]!.reset({ taskId: 'count-1' });
    await envs[1]!.reset({ taskId: 'count-1' });
    await expect(envs[2]!.reset({ taskId: 'count-1' })).rejects.toMatchObject({
      code: 'PROTOCOL_ERROR',
      message: expect.stringContaining('TOO_MANY_INSTANCES'),
    });
    await envs[0]!.close();
    await envs[2]!.reset({ taskId: 'count-1' }); // a failed create is retried by the next reset
  });

  it('keeps instances private to their connection and rejects overlapping calls with INSTANCE_BUSY', async () => {
    const { server } = await serve();
    const owner = await RawPeer.open(server.url);
    const other = await RawPeer.open(server.url);
    cleanup.push(() => owner.close(), () => other.close());
    const created = await owner.call({ id: 1, op: 'create', env: 'counter' });
    const instance = created.result.instance as string;
    await owner.call({ id: 2, op: 'reset', instance, taskId: 'count-3' });

    expect(await other.call({ id: 9, op: 'step', instance, action: 'inc' })).toMatchObject({
      op: 'error', id: 9, error: { code: 'INSTANCE_UNKNOWN' },
    });

    owner.send({ id: 3, op: 'step', instance, action: 'sleep:100' });
    owner.send({ id: 4, op: 'step', instance, action: 'inc' });
    expect(await owner.next()).toMatchObject({ op: 'error', id: 4, error: { code: 'INSTANCE_BUSY' } });
    expect(await owner.next()).toMatchObject({ op: 'result', id: 3, result: { observation: 'count=0' } });
    expect(await owner.call({ id: 'five', op: 'step', instance, action: 'inc' })).toMatchObject({
      op: 'result', id: 'five', result: { observation: 'count=1' },
    });
    expect(await owner.call({ id: 6, op: 'close', instance })).toEqual({ op: 'result', id: 6, result: {} });
    expect(await owner.call({ id: 7, op: 'oracle', instance })).toMatchObject({ id: 7, error: { code: 'INSTANCE_UNKNOWN' } });
  });

  it('answers over the rate limit with RATE_LIMITED, one reply per frame, never silence', async () => {
    const { server } = await serve({ rateLimit: { perSecond: 1, burst: 5 } });
    const peer = await RawPeer.open(server.url);
    cleanup.push(() => peer.close());
    for (let id = 0; id < 20; id++) peer.send({ id, op: 'spec', env: 'counter' });
    const replies = await Promise.all(Array.from({ length: 20 }, () => peer.next()));
    expect(replies.map((reply) => reply.id).sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    const limited = replies.filter((reply) => reply.error?.code === 'RATE_LIMITED');
    expect(limited.length).toBeGreaterThanOrEqual(14);
    expect(replies.filter((reply) => reply.op === 'result').length).toBe(20 - limited.length);
    expect(server.stats().rateLimited).toBe(limited.length);
  });
});
