import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient, type ChatClient, type ChatClientOptions } from '../../../policy/llm/chat-client.ts';
import type { ChatRequest } from '../../../policy/llm/chat-types.ts';
import { LlmError } from '../../../policy/llm/llm-error.ts';
import { startFaultServer, type FaultServer, type FaultServerOptions, type FaultStep } from '../../../bench/chat-fault-server.ts';

const servers: FaultServer[] = [];
const clients: ChatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: FaultServerOptions = {}): Promise<FaultServer> {
  const server = await startFaultServer(options);
  servers.push(server);
  return server;
}

/** A client whose backoff waits are recorded and skipped. */
function client(baseURL: string, options: Partial<ChatClientOptions> = {}): { client: ChatClient; waits: number[] } {
  const waits: number[] = [];
  const created = createChatClient({ baseURL, random: () => 0.5, sleep: async (ms) => void waits.push(ms), ...options });
  clients.push(created);
  return { client: created, waits };
}

const request: ChatRequest = {
  model: 'fault-model',
  messages: [
    { role: 'system', content: 'You act in a grid.' },
    { role: 'user', content: 'Your goal: go to the red ball.' },
  ],
  temperature: 0.7,
  maxTokens: 64,
  seed: 1234,
};
const key = { episodeId: 'slot3-a0', turn: 2 };

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('chat client, answered calls', () => {
  it('sends the request with the key as a bearer header and returns the reply with its accounting', async () => {
    const server = await serve({ content: () => 'Thought: left\nAction: turn left' });
    const { client: chat } = client(server.baseURL, { apiKey: 'sk-test-0123456789' });
    const reply = await chat.complete(request, key);
    expect(reply).toMatchObject({ content: 'Thought: left\nAction: turn left', promptTokens: 10, completionTokens: 8, retries: 0 });
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0);
    const seen = server.requests[0];
    expect(seen?.headers.authorization).toBe('Bearer sk-test-0123456789');
    expect(seen?.body).toMatchObject({ model: 'fault-model', messages: request.messages, temperature: 0.7, max_tokens: 64, seed: 1234 });
    expect(chat.usage()).toMatchObject({ calls: 1, failedCalls: 0, retries: 0, promptTokens: 10, completionTokens: 8, maxInFlight: 1 });
  });

  it('sends no Authorization header when there is no key', async () => {
    const server = await serve();
    const { client: chat } = client(server.baseURL);
    await chat.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, key);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body).not.toHaveProperty('seed');
    expect(server.requests[0]?.body).not.toHaveProperty('temperature');
  });

  it('counts 0 tokens when the server sends no usage', async () => {
    const server = await serve({ script: [{ kind: 'ok', omitUsage: true }] });
    const { client: chat } = client(server.baseURL);
    expect(await chat.complete(request, key)).toMatchObject({ promptTokens: 0, completionTokens: 0 });
  });

  it('assembles a streamed reply and its usage chunk', async () => {
    const server = await serve({ script: [{ kind: 'ok', content: 'Thought: I see it.\nAction: pick up ball', promptTokens: 33, completionTokens: 9 }] });
    const { client: chat } = client(server.baseURL, { stream: true });
    const reply = await chat.complete(request, key);
    expect(reply).toMatchObject({ content: 'Thought: I see it.\nAction: pick up ball', promptTokens: 33, completionTokens: 9, retries: 0 });
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

const retriedFaults: ReadonlyArray<{ name: string; step: FaultStep; stream?: boolean; code: LlmError['code'] }> = [
  { name: '500', step: { kind: 'status', status: 500 }, code: 'LLM_UNAVAILABLE' },
  { name: '503', step: { kind: 'status', status: 503 }, code: 'LLM_UNAVAILABLE' },
  { name: '429', step: { kind: 'status', status: 429 }, code: 'LLM_UNAVAILABLE' },
  { name: '408', step: { kind: 'status', status: 408 }, code: 'LLM_UNAVAILABLE' },
  { name: 'a hang past the deadline', step: { kind: 'hang' }, code: 'LLM_TIMEOUT' },
  { name: 'a streamed hang past the deadline', step: { kind: 'hang' }, stream: true, code: 'LLM_TIMEOUT' },
  { name: 'malformed JSON', step: { kind: 'malformed-json' }, code: 'LLM_BAD_RESPONSE' },
  { name: 'an HTML page', step: { kind: 'html' }, code: 'LLM_BAD_RESPONSE' },
  { name: 'an HTML page for a stream', step: { kind: 'html' }, stream: true, code: 'LLM_BAD_RESPONSE' },
  { name: 'no choice', step: { kind: 'no-choice' }, code: 'LLM_BAD_RESPONSE' },
  { name: 'a cut body', step: { kind: 'cut' }, code: 'LLM_BAD_RESPONSE' },
  { name: 'a cut SSE stream', step: { kind: 'cut' }, stream: true, code: 'LLM_BAD_RESPONSE' },
  { name: 'a stream that ends unfinished', step: { kind: 'truncated-stream' }, stream: true, code: 'LLM_BAD_RESPONSE' },
];

describe('chat client, transport failures', () => {
  for (const fault of retriedFaults) {
    it(`retries ${fault.name} and recovers`, async () => {
      const server = await serve({ script: [fault.step, fault.step] });
      const { client: chat, waits } = client(server.baseURL, { timeoutMs: 300, stream: fault.stream ?? false, backoff: { baseMs: 100 } });
      const reply = await chat.complete(request, key);
      expect(reply).toMatchObject({ content: 'Thought: fine\nAction: go', retries: 2 });
      expect(waits).toEqual([50, 100]);
      expect(server.chatRequests).toBe(3);
      expect(chat.usage()).toMatchObject({ calls: 1, failedCalls: 0, retries: 2 });
    });

    it(`throws ${fault.code} when ${fault.name} outlasts the retries`, async () => {
      const server = await serve({ fallback: fault.step });
      const { client: chat, waits } = client(server.baseURL, { timeoutMs: 300, retries: 2, stream: fault.stream ?? false });
      const error = await failure(chat.complete(request, key));
      expect(error.code).toBe(fault.code);
      expect(error).toMatchObject({ episodeId: 'slot3-a0', turn: 2, retries: 2 });
      expect(error.message).toContain('episode slot3-a0 turn 2');
      expect(error.message).toContain('after 3 attempts');
      expect(waits).toHaveLength(2);
      expect(server.chatRequests).toBe(3);
      expect(chat.usage()).toMatchObject({ calls: 1, failedCalls: 1, retries: 2, latencyP50Ms: 0 });
    });
  }

  it('retries a refused connection, then says it cannot reach the endpoint', async () => {
    const port = await closedPort();
    const { client: chat, waits } = client(`http://127.0.0.1:${port}/v1`, { retries: 3 });
    const error = await failure(chat.complete(request, key));
    // Issue 39: nothing ever answered, so the endpoint is down (fatal), not busy.
    expect(error.code).toBe('LLM_UNREACHABLE');
    expect(error.message).toMatch(/cannot reach the endpoint.*ECONNREFUSED/);
    expect(waits).toHaveLength(3);
    // Every later call fails at once, without trying.
    const again = await failure(chat.complete(request, { episodeId: 'e1', turn: 0 }));
    expect(again.code).toBe('LLM_UNREACHABLE');
    expect(waits).toHaveLength(3);
  });

  it('honours Retry-After (seconds and retry-after-ms), capped by backoff.maxMs', async () => {
    const server = await serve({
      script: [
        { kind: 'status', status: 429, retryAfter: '3' },
        { kind: 'status', status: 503, retryAfter: '120' },
        { kind: 'status', status: 429, retryAfterMs: '250' },
      ],
    });
    const { client: chat, waits } = client(server.baseURL, { backoff: { maxMs: 60_000 } });
    expect(await chat.complete(request, key)).toMatchObject({ retries: 3 });
    expect(waits).toEqual([3_000, 60_000, 250]);
  });

  it('holds no concurrency slot while a retry waits out its backoff', async () => {
    const server = await serve({ script: [{ kind: 'status', status: 429 }] });
    let wake: () => void = () => undefined;
    let backingOff: () => void = () => undefined;
    const asleep = new Promise<void>((resolve) => (wake = resolve));
    const slept = new Promise<void>((resolve) => (backingOff = resolve));
    const { client: chat } = client(server.baseURL, { concurrency: 1, sleep: () => (backingOff(), asleep) });
    const first = chat.complete(request, { episodeId: 'a', turn: 0 });
    await slept;
    // The first call is backing off; the second takes the only slot and finishes meanwhile.
    expect(await chat.complete(request, { episodeId: 'b', turn: 0 })).toMatchObject({ retries: 0 });
    wake();
    expect(await first).toMatchObject({ retries: 1 });
  });
});

describe('chat client, rejected requests', () => {
  it('does not retry a 400 and passes on the server’s message', async () => {
    const server = await serve({ fallback: { kind: 'status', status: 400, message: "'messages' must not be empty" } });
    const { client: chat, waits } = client(server.baseURL);
    const error = await failure(chat.complete(request, key));
    expect(error.code).toBe('LLM_REJECTED');
    expect(error.message).toContain("'messages' must not be empty");
    expect(server.chatRequests).toBe(1);
    expect(waits).toEqual([]);
  });

  it('says at once that a model does not exist', async () => {
    const server = await serve({ models: ['qwen2.5-7b'] });
    const { client: chat } = client(server.baseURL);
    const error = await failure(chat.complete({ ...request, model: 'qwen-typo' }, key));
    expect(error.code).toBe('LLM_REJECTED');
    expect(error.message).toContain('404');
    expect(error.message).toContain('The model `qwen-typo` does not exist');
    expect(server.chatRequests).toBe(1);
  });

  it('says a key is wrong without ever repeating it, even when the server echoes it', async () => {
    const secret = 'sk-wrong-5ecret-key-987';
    const server = await serve({ apiKey: 'sk-right' });
    const { client: chat } = client(server.baseURL, { apiKey: secret });
    const error = await failure(chat.complete(request, key));
    expect(error.code).toBe('LLM_REJECTED');
    expect(error.message).toContain('401 Incorrect API key provided');
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(String(error.stack)).not.toContain(secret);
  });
});

describe('chat client, load', () => {
  it('never has more requests in flight than its concurrency, with many parallel callers', async () => {
    const server = await serve({ latencyMs: (index) => 5 + (index % 7) * 3 });
    const { client: chat } = client(server.baseURL, { concurrency: 4 });
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => chat.complete(request, { episodeId: `e${i % 10}`, turn: Math.floor(i / 10) })));
    expect(replies).toHaveLength(40);
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
    expect(server.maxInFlight).toBeGreaterThan(1);
    expect(chat.usage().maxInFlight).toBeLessThanOrEqual(4);
    expect(chat.usage()).toMatchObject({ calls: 40, failedCalls: 0 });
  });

  it('completes every call of a run in which 20 % of the requests get 429', async () => {
    const server = await serve({ latencyMs: 2, script: (_, index) => (index % 5 === 4 ? { kind: 'status', status: 429, retryAfter: '1' } : { kind: 'ok' }) });
    const { client: chat, waits } = client(server.baseURL, { concurrency: 8, retries: 10 });
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => chat.complete(request, { episodeId: `e${i}`, turn: 0 })));
    expect(replies.every((reply) => reply.content === 'Thought: fine\nAction: go')).toBe(true);
    const usage = chat.usage();
    expect(usage).toMatchObject({ calls: 60, failedCalls: 0 });
    expect(usage.retries).toBeGreaterThanOrEqual(12);
    expect(usage.retries).toBe(server.chatRequests - 60);
    expect(waits.every((ms) => ms === 1_000)).toBe(true);
    expect(server.maxInFlight).toBeLessThanOrEqual(8);
  });
});
