/**
 * Issue 38: a batch cut short leaks nothing. The envs run on an env server (so its open instances
 * can be counted) and the policy endpoint sits behind a delaying proxy (so episodes are mid-turn,
 * and its open sockets can be counted): a client that closes its connection mid-stream, and a
 * DELETE /v1/rollouts/{id}, both end the batch with every instance released and every socket of
 * its LLM client closed at once (its close() aborts the calls and destroys its pool) — measured
 * before and after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../../envs/index.ts';
import { startEnvServer, type EnvServerHandle } from '../../../servers/env-server/env-server.ts';
import type { RolloutServer } from '../../../servers/rollout-server/rollout-server.ts';
import type { ScriptedServer } from '../../policy/llm/scripted-completions-server.ts';
import { policyOf, startBabyAiScripted, startDelayProxy, startService, type DelayProxy } from './service-fixture.ts';

let llm: ScriptedServer;
let proxy: DelayProxy;
let envServer: EnvServerHandle;
let service: RolloutServer;
beforeAll(async () => {
  llm = await startBabyAiScripted();
  proxy = await startDelayProxy(llm.baseURL, 150);
  envServer = await startEnvServer({ port: 0, resolveEnv: getEnv });
  service = await startService({ remote: envServer.url });
});
afterAll(async () => {
  await service.close();
  await envServer.close();
  await proxy.close();
  await llm.close();
});

const body = () => ({ env: 'babyai', count: 6, groupSize: 2, horizon: 20, concurrency: 8, policy: policyOf(proxy.baseURL) });

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 8_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: instances ${envServer.stats().instances}, sockets ${await proxy.connections()}, batches ${service.batches}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Opens a batch and reads its stream until the first line; returns the reader and the id. */
async function open(signal: AbortSignal) {
  const res = await fetch(`${service.url}/v1/rollouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()), signal });
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  return { reader, id: res.headers.get('x-rollout-id')!, first: JSON.parse(first.split('\n')[0]!) as { type: string; episodes: number } };
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Record<string, unknown>[]> {
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return text.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('cancelling a batch', () => {
  it('a client that closes the connection mid-stream cancels the batch: no env instance, no LLM socket left', async () => {
    const before = { instances: envServer.stats().instances, sockets: await proxy.connections() };
    expect(before).toEqual({ instances: 0, sockets: 0 });
    const abort = new AbortController();
    const { first } = await open(abort.signal);
    expect(first).toMatchObject({ type: 'started', episodes: 12 });
    await until(async () => envServer.stats().instances >= 8 && (await proxy.connections()) > 0, '8 env instances and LLM calls in use');
    const during = { instances: envServer.stats().instances, sockets: await proxy.connections() };
    expect(during.sockets).toBeGreaterThan(0);
    abort.abort();
    // The batch ends and gives its instances back at once (measured: ~20 ms), and closing the
    // LLM client aborts its calls in flight and destroys its own connection pool, so its sockets
    // are gone with it (measured: 8 open during, 0 when the batch has ended, 25–53 ms after the
    // abort; before, close() did nothing and they idled out of undici's pool, ~3.2 s). 250 ms is
    // margin for the proxy to see the closes.
    await until(() => service.batches === 0 && envServer.stats().instances === 0, 'the batch to end and its instances to be released', 1_000);
    await until(async () => (await proxy.connections()) === 0, 'the LLM sockets to close', 250);
    const requests = llm.requests.length;
    await new Promise((r) => setTimeout(r, 400));
    // Nothing runs on: no new call reached the endpoint after the batch ended.
    expect(llm.requests.length).toBe(requests);
    expect({ during, after: { instances: envServer.stats().instances, sockets: await proxy.connections() } }).toMatchObject({ after: { instances: 0, sockets: 0 } });
  });

  it('DELETE /v1/rollouts/{id} cancels: 204, the stream ends with an error line, nothing is left', async () => {
    const { reader, id } = await open(new AbortController().signal);
    await until(() => envServer.stats().instances > 0, 'episodes running');
    const deleted = await fetch(`${service.url}/v1/rollouts/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    const lines = await readAll(reader);
    expect(lines.at(-1)).toMatchObject({ type: 'error', message: expect.stringContaining('cancelled by DELETE') });
    expect(lines.filter((l) => l.type === 'record').length).toBeLessThan(12);
    // The stream ends after the batch has closed its LLM client: 250 ms is margin (measured ~0 ms).
    await until(async () => envServer.stats().instances === 0 && (await proxy.connections()) === 0 && service.batches === 0, 'instances and sockets released', 250);
    expect((await fetch(`${service.url}/v1/rollouts/${id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('limits and drain', () => {
  it('past --max-batches a batch is a 503 and /readyz says at capacity; closing the service cancels a batch past its drain time', async () => {
    const small = await startService({ remote: envServer.url, maxBatches: 1, drainMs: 300 });
    const res = await fetch(`${small.url}/v1/rollouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) });
    const reader = res.body!.getReader();
    await reader.read();
    const second = await fetch(`${small.url}/v1/rollouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) });
    expect(second.status).toBe(503);
    expect(await second.json()).toEqual({ error: { message: expect.stringContaining('runs 1 batches already') } });
    const ready = await fetch(`${small.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, reason: 'at capacity', batches: 1 });
    const closed = small.close();
    const lines = await readAll(reader);
    expect(lines.at(-1)).toMatchObject({ type: 'error', message: 'cancelled: the service is shutting down' });
    await closed;
    await until(() => envServer.stats().instances === 0, 'instances released', 1_000);
  });
});
