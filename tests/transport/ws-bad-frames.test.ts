import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { counterDefinition, resolver } from './fake-env.ts';
import { RawPeer } from './raw-peer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(maxPayload?: number) {
  const server = await startEnvServer({
    port: 0,
    resolveEnv: resolver(counterDefinition()),
    ...(maxPayload ? { maxPayload } : {}),
  });
  cleanup.push(() => server.close());
  return server;
}

/** A well-behaved client that plays episodes back to back until told to stop. */
function keepStepping(url: string) {
  let stop = false;
  let episodes = 0;
  const done = (async () => {
    const connection = await connectEnvServer(url);
    await connection.spec('counter');
    const env = connection.makeEnv('counter');
    while (!stop) {
      await env.reset({ taskId: 'count-4' });
      let result;
      do result = await env.step('inc');
      while (!result.terminated);
      episodes++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await connection.close();
    return episodes;
  })();
  return { stop: async () => ((stop = true), done), progress: () => episodes };
}

describe('bad frames', () => {
  it('answers each bad frame with a typed error (request id when readable) while another client keeps stepping', async () => {
    const server = await setup();
    const good = keepStepping(server.url);
    const bad = await RawPeer.open(server.url);
    cleanup.push(() => bad.close());

    const cases: [frame: string | object | Buffer, binary: boolean, expected: object][] = [
      ['{not json', false, { id: null, error: { code: 'BAD_JSON' } }],
      ['', false, { id: null, error: { code: 'BAD_JSON' } }],
      [Buffer.from([1, 2, 3]), true, { id: null, error: { code: 'BAD_FRAME' } }],
      [Buffer.from('{"id":1,"op":"spec","env":"counter"}'), true, { id: null, error: { code: 'BAD_FRAME' } }],
      [[1, 2, 3], false, { id: null, error: { code: 'BAD_FRAME' } }],
      ['null', false, { id: null, error: { code: 'BAD_FRAME' } }],
      [{ op: 'spec', env: 'counter' }, false, { id: null, error: { code: 'BAD_FRAME' } }],
      [{ id: -4, op: 'spec', env: 'counter' }, false, { id: null, error: { code: 'BAD_FRAME' } }],
      [{ id: 5, op: 'step' }, false, { id: 5, error: { code: 'BAD_FRAME', message: expect.stringContaining('instance') } }],
      [{ id: 6, op: 'reset', instance: 'i1', taskId: 'count-1', seed: 1.5 }, false, { id: 6, error: { code: 'BAD_FRAME', message: expect.stringContaining('seed') } }],
      [{ id: 7, op: 'fly' }, false, { id: 7, error: { code: 'UNKNOWN_OP' } }],
      [{ id: 'x', op: 42 }, false, { id: 'x', error: { code: 'BAD_FRAME' } }],
      [{ id: 8, op: 'step', instance: 'i999', action: 'inc' }, false, { id: 8, error: { code: 'INSTANCE_UNKNOWN' } }],
      [{ id: 9, op: 'tasks', env: 'counter', split: 'validation' }, false, { id: 9, error: { code: 'BAD_FRAME' } }],
      [{ id: 10, op: 'create', env: 'nope' }, false, { id: 10, error: { code: 'ENV_UNKNOWN' } }],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [frame, binary, expected] of cases) {
        expect(await bad.call(frame, binary)).toMatchObject({ op: 'error', ...expected });
      }
    }
    // The bad peer's connection still works for valid frames.
    expect(await bad.call({ id: 11, op: 'spec', env: 'counter' })).toMatchObject({ op: 'result', id: 11 });
    const before = good.progress();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(good.progress()).toBeGreaterThan(before);
    expect(await good.stop()).toBeGreaterThan(0);
  });

  it('closes a peer that sends an oversize frame with 1009, and nobody else notices', async () => {
    const server = await setup(1024);
    const good = keepStepping(server.url);
    const big = await connectEnvServer(server.url);
    await big.spec('counter');
    const env = big.makeEnv('counter');
    await env.reset({ taskId: 'count-1' });
    const error = await env.step('x'.repeat(4096)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ENV_LOST', message: expect.stringContaining('1009') });
    expect(big.closed).toBe(true);
    await expect(big.spec('counter')).rejects.toMatchObject({ code: 'ENV_LOST' });

    const peer = await RawPeer.open(server.url);
    peer.send('x'.repeat(2048));
    expect(await peer.closed).toBe(1009);

    const before = good.progress();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(good.progress()).toBeGreaterThan(before);
    await good.stop();
    expect(server.stats().connections).toBe(0);
  });
});
