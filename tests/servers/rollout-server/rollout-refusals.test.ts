/**
 * Issue 38: what the rollout service refuses, and how: bad bodies are a 400 `{error:{message,
 * field}}` naming the field, an unknown env names it, a missing token is a 401 (health probes stay
 * open), and a policy endpoint that is down ends the stream with an error line — the service
 * keeps serving.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutServer } from '../../../servers/rollout-server/rollout-server.ts';
import type { ScriptedServer } from '../../policy/llm/scripted-completions-server.ts';
import { policyOf, postBatch, startBabyAiScripted, startService } from './service-fixture.ts';

let llm: ScriptedServer;
let service: RolloutServer;
const logged: Record<string, unknown>[] = [];
beforeAll(async () => {
  llm = await startBabyAiScripted();
  service = await startService({ token: 's3cret', maxConcurrency: 4, log: (event, fields) => logged.push({ event, ...fields }) });
});
afterAll(async () => {
  await service.close();
  await llm.close();
});

// The refusals never reach an endpoint; the batches that run are pointed at the scripted one.
const good = () => ({ env: 'babyai', count: 2, horizon: 2, policy: policyOf(llm?.baseURL ?? 'http://127.0.0.1:9/v1') });
const refusal = async (body: unknown) => {
  const reply = await postBatch(service.url, body, 's3cret');
  return { status: reply.status, error: (JSON.parse(reply.body) as { error: { message: string; field?: string } }).error };
};

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('rollout service refusals', () => {
  it.each([
    ['malformed JSON', '{"env":', undefined, 'malformed JSON'],
    ['no policy', { env: 'babyai', count: 1 }, 'policy', 'policy'],
    ['tasks and count', { ...good(), tasks: ['x'] }, 'count', 'not both'],
    ['neither tasks nor count', { env: 'babyai', policy: good().policy }, 'count', 'give tasks'],
    ['a bad split', { ...good(), split: 'dev' }, 'split', 'split'],
    ['groupSize 0', { ...good(), groupSize: 0 }, 'groupSize', 'groupSize'],
    ['an unknown field', { ...good(), group_size: 4 }, 'group_size', 'group_size'],
    ['horizon and curriculum', { ...good(), curriculum: { schedule: 'fixed:3', step: 1 } }, 'curriculum', 'not both'],
    ['a bad schedule', { env: 'babyai', count: 1, curriculum: { schedule: 'sometimes', step: 1 }, policy: good().policy }, 'curriculum.schedule', 'bad schedule'],
    ['a tokenizer not hf:', { ...good(), policy: { ...good().policy, tokenizer: 'models/x' } }, 'policy.tokenizer', 'hf:DIR'],
    ['a missing tokenizer folder', { ...good(), policy: { ...good().policy, tokenizer: 'hf:/no/such/dir' } }, 'policy.tokenizer', '/no/such/dir'],
    ['count past the split', { ...good(), count: 10, offset: 1_000_000 }, 'count', 'past the'],
    ['an unknown task', { ...good(), count: undefined, tasks: ['no-such-task'] }, 'tasks', 'no-such-task'],
    ['an unknown env', { ...good(), env: 'chess' }, 'env', 'chess'],
    ['topP 0', { ...good(), policy: { ...good().policy, topP: 0 } }, 'policy.topP', 'policy.topP'],
    ['topP over 1', { ...good(), policy: { ...good().policy, topP: 1.5 } }, 'policy.topP', 'policy.topP'],
  ])('%s: 400 naming the field', async (_, body, field, words) => {
    const { status, error } = await refusal(body);
    expect(status).toBe(400);
    expect(error.message).toContain(words);
    if (field !== undefined) expect(error.field).toBe(field);
    expect(service.batches).toBe(0);
  });

  it('asks the bearer token on the API but not on the health probes', async () => {
    expect((await postBatch(service.url, good())).status).toBe(401);
    expect((await postBatch(service.url, good(), 'wrong')).status).toBe(401);
    expect((await fetch(`${service.url}/v1/rollouts/x`, { method: 'DELETE' })).status).toBe(401);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, batches: 0, maxBatches: 8 });
    expect((await fetch(`${service.url}/v1/rollouts/nope`, { method: 'DELETE', headers: { authorization: 'Bearer s3cret' } })).status).toBe(404);
    expect((await fetch(`${service.url}/v1/rollouts`, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(405);
  });

  it('a policy endpoint that is down ends the stream with an error line; the service serves the next batch', async () => {
    const down = await postBatch(service.url, { ...good(), policy: { ...good().policy, baseUrl: `http://127.0.0.1:${await deadPort()}/v1` } }, 's3cret');
    expect(down.status).toBe(200);
    expect(down.lines[0]).toMatchObject({ type: 'started', episodes: 2 });
    expect(down.lines.filter((l) => l.type === 'record')).toHaveLength(0);
    expect(down.lines.at(-1)).toMatchObject({ type: 'error', message: expect.stringMatching(/policy endpoint http:\/\/127\.0\.0\.1:\d+\/v1: LLM_UNREACHABLE/) });
    const next = await postBatch(service.url, good(), 's3cret');
    expect(next.lines.at(-1)!.type).toBe('done');
    expect(next.lines.filter((l) => l.type === 'record')).toHaveLength(2);
  });

  it('caps a batch\'s concurrency at --max-concurrency', async () => {
    const reply = await postBatch(service.url, { ...good(), count: 6, concurrency: 50 }, 's3cret');
    expect(reply.lines.at(-1)!.type).toBe('done');
    expect(logged.find((l) => l.event === 'batch.started' && l.id === reply.headers.get('x-rollout-id'))).toMatchObject({ episodes: 6, concurrency: 4 });
  });
});
