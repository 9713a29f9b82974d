/**
 * Issue 38: closing an LLM client ends everything at once. A call in flight (or waiting out a
 * backoff) ends as LLM_CANCELLED, is not retried, and sends nothing more; calls after close are
 * refused without reaching the endpoint; and the client's sockets, busy or idle, are closed by the
 * time `close()` resolves (they used to idle out of the process-wide pool, about 4 s later).
 * Both the token-exact client and the chat client (streamed or not) share this (endpoint-caller.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient } from '../../../policy/llm/chat-client.ts';
import { createTokenClient } from '../../../policy/llm/completion-client.ts';
import { LlmError } from '../../../policy/llm/llm-error.ts';

/** What the endpoint does with a request: hold it (no reply), hold it after one SSE chunk, or answer 503 / a chat completion. */
type Behaviour = 'hold' | 'hold-stream' | '503' | 'answer';

interface Endpoint {
  readonly baseURL: string;
  readonly requests: number;
  connections(): Promise<number>;
  close(): Promise<void>;
}

async function endpoint(behaviour: Behaviour): Promise<Endpoint> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      if (behaviour === '503') return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}');
      if (behaviour === 'answer') {
        return void res.writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }));
      }
      if (behaviour === 'hold-stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'par' }, finish_reason: null }] })}\n\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    connections: () => new Promise((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n)))),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const endpoints: Endpoint[] = [];
afterEach(async () => Promise.all(endpoints.splice(0).map((e) => e.close())));
async function start(behaviour: Behaviour): Promise<Endpoint> {
  const e = await endpoint(behaviour);
  endpoints.push(e);
  return e;
}

async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const key = { episodeId: 'e0', turn: 0 };
const tokenRequest = { model: 'm', promptIds: [1, 2, 3], messages: [{ role: 'user', content: 'hi' }] };
const chatRequest = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
const cancelled = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: unknown) => (error instanceof LlmError ? `${error.code}/${error.retries}` : String(error)));

/** Starts a call that the endpoint holds, closes the client, and checks what the brief asks of close(). */
async function closeInFlight(behaviour: Behaviour, open: (baseURL: string) => { call(): Promise<unknown>; close(): Promise<void> }) {
  const e = await start(behaviour);
  const client = open(e.baseURL);
  const call = cancelled(client.call());
  await until(async () => e.requests === 1 && (await e.connections()) === 1, 2_000, 'the call to reach the endpoint');
  const t0 = performance.now();
  await client.close();
  expect(await call).toBe('LLM_CANCELLED/0');
  expect(performance.now() - t0).toBeLessThan(500);
  // The socket is gone as close() resolves (the server sees the FIN a moment later).
  await until(async () => (await e.connections()) === 0, 250, 'the client\'s socket to close');
  expect(await cancelled(client.call())).toBe('LLM_CANCELLED/0');
  await new Promise((r) => setTimeout(r, 50));
  expect({ requests: e.requests, connections: await e.connections() }).toEqual({ requests: 1, connections: 0 });
}

describe('closing an LLM client', () => {
  it('token client: a call in flight ends as LLM_CANCELLED at once, unretried; its socket closes; later calls are refused', async () => {
    await closeInFlight('hold', (baseURL) => {
      const client = createTokenClient({ baseURL, retries: 4 });
      return { call: () => client.complete(tokenRequest, key), close: () => client.close() };
    });
  });

  it('chat client: the same, unstreamed and streamed (a stream cut by close is not a partial reply)', async () => {
    for (const [behaviour, stream] of [['hold', false], ['hold-stream', true]] as const) {
      await closeInFlight(behaviour, (baseURL) => {
        const client = createChatClient({ baseURL, retries: 4, stream });
        return { call: () => client.complete(chatRequest, key), close: () => client.close() };
      });
    }
  });

  it('a call waiting out a backoff ends as LLM_CANCELLED at close, without another attempt', async () => {
    const e = await start('503');
    const client = createTokenClient({ baseURL: e.baseURL, retries: 4, backoff: { baseMs: 60_000, maxMs: 60_000 }, random: () => 0.99 });
    const call = cancelled(client.complete(tokenRequest, key));
    await until(() => e.requests === 1, 2_000, 'the first attempt');
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await client.close();
    expect(await call).toBe('LLM_CANCELLED/0');
    expect(performance.now() - t0).toBeLessThan(500);
    expect(e.requests).toBe(1);
  });

  it('an idle kept-alive socket closes with the client, not seconds later', async () => {
    const e = await start('answer');
    const client = createChatClient({ baseURL: e.baseURL });
    expect((await client.complete(chatRequest, key)).content).toBe('hi');
    await new Promise((r) => setTimeout(r, 50));
    expect(await e.connections()).toBe(1);
    await client.close();
    await until(async () => (await e.connections()) === 0, 250, 'the idle socket to close');
  });
});
