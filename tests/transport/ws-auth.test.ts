import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { EMPTY, lastValueFrom } from 'rxjs';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { observeRun, ObserveRunError } from '../../transport/observe-run.ts';
import { counterDefinition, resolver } from './fake-env.ts';
import { RawPeer } from './raw-peer.ts';

const TOKEN = 's3cret-token';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup() {
  const server = await startEnvServer({ port: 0, token: TOKEN, resolveEnv: resolver(counterDefinition()) });
  cleanup.push(() => server.close());
  return server;
}

/** Status and JSON body of a refused upgrade. */
function refusal(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('error', () => {});
    ws.on('open', () => reject(new Error('upgrade was accepted')));
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) });
        ws.terminate();
      });
    });
  });
}

describe('bearer token auth', () => {
  it('accepts the token in the Authorization header', async () => {
    const server = await setup();
    const connection = await connectEnvServer(server.url, { token: TOKEN });
    expect((await connection.spec('counter')).id).toBe('counter');
    await connection.close();
  });

  it('accepts the token as ?token= for browsers', async () => {
    const server = await setup();
    const peer = await RawPeer.open(`${server.url}/?token=${TOKEN}`);
    expect(await peer.call({ id: 1, op: 'spec', env: 'counter' })).toMatchObject({ op: 'result', id: 1 });
    await peer.close();
  });

  it('refuses a missing or wrong token with HTTP 401 before the upgrade', async () => {
    const server = await setup();
    expect(await refusal(server.url)).toEqual({
      status: 401,
      body: { error: { code: 'UNAUTHORIZED', message: expect.any(String) } },
    });
    expect((await refusal(server.url, { Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await refusal(server.url, { Authorization: `Basic ${TOKEN}` })).status).toBe(401);
    expect((await refusal(`${server.url}/?token=nope`)).status).toBe(401);
    await expect(connectEnvServer(server.url)).rejects.toMatchObject({
      code: 'PROTOCOL_ERROR',
      message: expect.stringContaining('UNAUTHORIZED'),
    });
    await expect(connectEnvServer(server.url, { token: 'wrong' })).rejects.toMatchObject({ code: 'PROTOCOL_ERROR' });
    expect(server.stats().connections).toBe(0);
  });

  it('guards the event server the same way', async () => {
    const events = await startEventServer({ port: 0, events: EMPTY, token: TOKEN });
    cleanup.push(() => events.close());
    const error = await lastValueFrom(observeRun(events.url), { defaultValue: 'none' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObserveRunError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await lastValueFrom(observeRun(events.url, { token: TOKEN }), { defaultValue: 'completed' })).toBe('completed');
  });

  it('reports an unreachable server as ENV_LOST', async () => {
    const server = await setup();
    const url = server.url;
    await server.close();
    cleanup.length = 0;
    await expect(connectEnvServer(url, { token: TOKEN })).rejects.toMatchObject({ code: 'ENV_LOST' });
  });
});
