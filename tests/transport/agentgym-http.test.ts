import { afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer, type AgentGymHttpServerOptions } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { EnvError, type Env, type StepResult } from '../../envs/contract.ts';
import {
  agentGymHttpDefinition,
  agentGymTaskOrder,
  createAgentGymHttpEnv,
  type AgentGymHttpEnvOptions,
} from '../../transport/remote/agentgym-http-env.ts';
import { fakeCounterDefinition, fakeSpec } from './agentgym-fake-env.ts';

const servers: AgentGymHttpServer[] = [];
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<AgentGymHttpServerOptions> = {}): Promise<AgentGymHttpServer> {
  const server = await startAgentGymHttpServer({ port: 0, definition: fakeCounterDefinition(), ...options });
  servers.push(server);
  return server;
}

const order = agentGymTaskOrder(fakeCounterDefinition());
function client(url: string, options: Partial<AgentGymHttpEnvOptions> = {}): Env {
  const env = createAgentGymHttpEnv(url, { spec: fakeSpec, taskIndex: (id) => order.dataIdxOf(id) ?? -1, ...options });
  envs.push(env);
  return env;
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

async function rejection(promise: Promise<unknown>): Promise<EnvError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(EnvError);
  return err as EnvError;
}

describe('AgentGym HTTP server, raw protocol', () => {
  it('runs a whole episode with AgentGym field names', async () => {
    const { url } = await serve();
    const created = await post(`${url}/create`, {});
    expect(created).toEqual({ status: 200, json: { id: 0 } });

    const reset = await post(`${url}/reset`, { id: 0, data_idx: 0 }); // data_idx 0 = first test task, target 2
    expect(reset.json).toEqual({
      observation: 'Your goal: count to 2\nCounter 0 of 2.\nAvailable actions: ["inc", "wait"]',
      reward: 0,
      score: 0,
      done: false,
      deleted: false,
    });

    const first = await post(`${url}/step`, { id: 0, action: 'inc' });
    expect(first.json).toEqual({ observation: 'Counter 1 of 2.\nAvailable actions: ["inc", "wait"]', reward: 0, score: 0, done: false });
    const observed = await fetch(`${url}/observation?id=0`);
    expect(await observed.json()).toBe('Counter 1 of 2.\nAvailable actions: ["inc", "wait"]');

    const last = await post(`${url}/step`, { id: 0, action: 'inc' });
    expect(last.json).toEqual({ observation: 'Counter 2 of 2.\nAvailable actions: ["inc", "wait"]', reward: 0.8, score: 0.8, done: true, success: true });
    const after = await post(`${url}/step`, { id: 0, action: 'inc' });
    expect(after.json).toMatchObject({ error: expect.stringContaining('has finished'), code: 'ENV_NOT_RESET' });

    expect((await post(`${url}/close`, { id: 0 })).json).toBe(true);
    expect((await post(`${url}/close`, { id: 0 })).json).toBe(false);
    expect(await (await fetch(`${url}/`)).json()).toContain('fake-counter');
  });

  it('lists the valid actions at GET /action_hint, none once the episode is over', async () => {
    const { url } = await serve();
    await post(`${url}/create`, {});
    expect(await (await fetch(`${url}/action_hint?id=0`)).json()).toMatchObject({ code: 'ENV_NOT_RESET' });
    await post(`${url}/reset`, { id: 0, data_idx: 0 });
    expect(await (await fetch(`${url}/action_hint?id=0`)).json()).toEqual({ valid_actions: ['inc', 'wait'] });
    await post(`${url}/step`, { id: 0, action: 'inc' });
    await post(`${url}/step`, { id: 0, action: 'inc' }); // target 2: done
    expect(await (await fetch(`${url}/action_hint?id=0`)).json()).toEqual({ valid_actions: [] });
    expect(await (await fetch(`${url}/action_hint?id=9`)).json()).toMatchObject({ code: 'ENV_CLOSED' });
    expect((await fetch(`${url}/action_hint?id=x`)).status).toBe(400);
  });

  it('maps data_idx to test tasks then train tasks', async () => {
    const { url } = await serve();
    await post(`${url}/create`, {});
    const goal = async (dataIdx: number) => ((await post(`${url}/reset`, { id: 0, data_idx: dataIdx })).json as { observation: string }).observation.split('\n')[0];
    expect(await goal(1)).toBe('Your goal: count to 3'); // counter_1
    expect(await goal(2)).toBe('Your goal: count to 4'); // first train task, counter_2
    expect((await post(`${url}/reset`, { id: 0, data_idx: 6 })).json).toMatchObject({ code: 'TASK_UNKNOWN', error: expect.stringContaining('0..5') });
  });

  it('answers bad input with clear errors and keeps serving', async () => {
    const { url } = await serve({ maxBodyBytes: 1024 });
    expect(await post(`${url}/step`, '{"id": 0, "action": ')).toMatchObject({ status: 400, json: { error: expect.stringContaining('malformed JSON') } });
    expect(await post(`${url}/step`, [1, 2])).toMatchObject({ status: 400, json: { error: expect.stringContaining('JSON object') } });
    expect(await post(`${url}/step`, { action: 'inc' })).toMatchObject({ status: 400, json: { error: 'missing field "id" (an integer)' } });
    expect(await post(`${url}/step`, { id: 0.5, action: 'inc' })).toMatchObject({ status: 400, json: { error: expect.stringContaining('"id" must be an integer') } });
    expect(await post(`${url}/reset`, { id: 0 })).toMatchObject({ status: 400, json: { error: 'missing field "data_idx" (an integer)' } });
    expect(await post(`${url}/step`, { id: 0, action: 3 })).toMatchObject({ status: 400, json: { error: expect.stringContaining('"action" must be a string') } });
    expect(await post(`${url}/step`, { id: 42, action: 'inc' })).toMatchObject({ status: 200, json: { error: expect.stringContaining('The id 42 is not valid'), code: 'ENV_CLOSED' } });
    expect(await post(`${url}/nope`, {})).toMatchObject({ status: 404 });
    expect((await fetch(`${url}/step`)).status).toBe(405);
    expect((await fetch(`${url}/observation?id=x`)).status).toBe(400);
    expect(await post(`${url}/step`, { id: 0, action: 'x'.repeat(5000) })).toMatchObject({ status: 413, json: { error: expect.stringContaining('maxBodyBytes=1024') } });

    const { json } = await post(`${url}/create`, {});
    expect(json).toEqual({ id: 0 });
    expect((await post(`${url}/step`, { id: 0, action: 'inc' })).json).toMatchObject({ code: 'ENV_NOT_RESET', error: expect.stringContaining('not been reset') });
    expect(await (await fetch(`${url}/observation?id=0`)).json()).toMatchObject({ code: 'ENV_NOT_RESET' });
    expect((await post(`${url}/reset`, { id: '0', data_idx: 0 })).json).toMatchObject({ done: false }); // pydantic-style "0"
  });

  it('enforces maxInstances with a clear error', async () => {
    const { url } = await serve({ maxInstances: 2 });
    await post(`${url}/create`, {});
    await post(`${url}/create`, {});
    expect((await post(`${url}/create`, {})).json).toMatchObject({ error: expect.stringContaining('instance limit reached (maxInstances=2)') });
    await post(`${url}/close`, { id: 0 });
    expect((await post(`${url}/create`, {})).json).toEqual({ id: 2 });
  });

  it('closes instances idle longer than idleTtlMs', async () => {
    const counters = { made: 0, closed: 0 };
    const { url } = await serve({ definition: fakeCounterDefinition({ counters }), idleTtlMs: 250 });
    const idle = () => new Promise((resolve) => setTimeout(resolve, 700));
    await post(`${url}/create`, {});
    await idle();
    expect((await post(`${url}/reset`, { id: 0, data_idx: 0 })).json).toMatchObject({ code: 'ENV_CLOSED', error: expect.stringContaining('The id 0 is not valid') });
    expect(counters).toEqual({ made: 1, closed: 1 });

    // The client recreates an instance the server forgot between episodes.
    const env = client(url);
    await env.reset({ taskId: 'counter_0' });
    await idle();
    expect((await env.reset({ taskId: 'counter_1' })).observation).toContain('count to 3');
    expect(counters.made - counters.closed).toBe(1); // only the live instance is open
  });

  it('refuses a second call on a busy id and closes every instance on shutdown', async () => {
    const counters = { made: 0, closed: 0 };
    const server = await serve({ definition: fakeCounterDefinition({ counters, stepDelayMs: 300 }) });
    await post(`${server.url}/create`, {});
    await post(`${server.url}/create`, {});
    await post(`${server.url}/reset`, { id: 0, data_idx: 0 });
    const replies = await Promise.all([post(`${server.url}/step`, { id: 0, action: 'inc' }), post(`${server.url}/step`, { id: 0, action: 'inc' })]);
    const busy = replies.filter(({ json }) => (json as { code?: string }).code === 'PROTOCOL_ERROR');
    expect(busy).toHaveLength(1);
    expect(busy[0]?.json).toMatchObject({ error: expect.stringContaining('busy') });
    expect(replies.filter(({ json }) => (json as { done?: boolean }).done === false)).toHaveLength(1);
    await server.close();
    await server.close(); // idempotent
    expect(counters).toEqual({ made: 2, closed: 2 });
  });

  it('serves the TextCraft and SciWorld field names', async () => {
    const textcraft = await serve({ adapter: 'textcraft' });
    expect((await post(`${textcraft.url}/create`, {})).json).toEqual({ id: 0, observation: expect.stringContaining('count to 2'), done: false, reward: 0 });
    expect((await post(`${textcraft.url}/create`, { goal: 'x' })).json).toMatchObject({ code: 'PROTOCOL_ERROR' });
    expect(Object.keys((await post(`${textcraft.url}/reset`, { id: 0, data_idx: 1 })).json as object).sort()).toEqual(['done', 'id', 'observation', 'reward']);
    expect(Object.keys((await post(`${textcraft.url}/step`, { id: 0, action: 'wait' })).json as object).sort()).toEqual(['done', 'observation', 'reward']);

    const sciworld = await serve({ adapter: 'sciworld' });
    await post(`${sciworld.url}/create`, {});
    const reset = (await post(`${sciworld.url}/reset`, { id: 0, data_idx: 0 })).json as object;
    expect(Object.keys(reset).sort()).toEqual(['deleted', 'done', 'observation', 'reward', 'score', 'task_description', 'task_name', 'var_num']);
  });
});

describe('AgentGym HTTP client Env', () => {
  async function episode(env: Env, taskId: string, actions: string[]) {
    const steps: StepResult[] = [];
    const reset = await env.reset({ taskId });
    for (const action of actions) {
      const result = await env.step(action);
      steps.push(result);
      if (result.terminated || result.truncated) break;
    }
    return { reset, steps };
  }
  const script = ['inc', 'jump', 'wait', 'inc', 'inc', 'inc', 'inc', 'wait', 'wait', 'wait', 'wait'];

  it.each(['generic', 'babyai', 'textcraft', 'sciworld'] as const)('matches the in-process env over whole episodes (%s)', async (flavor) => {
    const { url } = await serve({ adapter: flavor });
    const remote = client(url, { flavor });
    const local = fakeCounterDefinition().make();
    for (const [taskId, actions] of [['counter_0', script], ['counter_4', script], ['counter_2', ['wait', 'jump']]] as const) {
      const want = await episode(local, taskId, [...actions]);
      const got = await episode(remote, taskId, [...actions]);
      expect(got.reset.observation).toBe(want.reset.observation);
      expect(got.reset.info.availableActions).toEqual(want.reset.info.availableActions);
      expect(got.steps.map(({ observation, reward, terminated, truncated, info }) => ({ observation, reward, terminated, truncated, success: info.success, actions: info.availableActions, invalid: info.invalidAction }))).toEqual(
        // The fake env's `score` is its reward sum (0..1), which the sciworld flavor reads as ScienceWorld points (/100).
        want.steps.map(({ observation, reward, terminated, truncated, info }) => ({ observation, reward: flavor === 'sciworld' ? reward / 100 : reward, terminated, truncated, success: info.success, actions: info.availableActions, invalid: info.invalidAction })),
      );
    }
    expect((await episode(remote, 'counter_5', ['wait', 'wait', 'wait', 'wait', 'wait', 'wait', 'wait', 'wait'])).steps.at(-1)).toMatchObject({ truncated: true, terminated: false });
    await expect(remote.step('inc')).rejects.toMatchObject({ code: 'ENV_NOT_RESET' });
  });

  it('runs 64 concurrent episodes over one keep-alive agent', async () => {
    const counters = { made: 0, closed: 0 };
    const { url } = await serve({ definition: fakeCounterDefinition({ counters }) });
    const definition = agentGymHttpDefinition(url, { spec: fakeSpec, tasks: { test: ['counter_0', 'counter_1'], train: ['counter_2', 'counter_3', 'counter_4', 'counter_5'] } });
    const results = await Promise.all(
      Array.from({ length: 64 }, async (_, i) => {
        const env = definition.make();
        const taskId = `counter_${i % 6}`;
        await env.reset({ taskId });
        let last: StepResult;
        do last = await env.step('inc');
        while (!last.terminated);
        await env.close();
        return last.info.success;
      }),
    );
    expect(results.every(Boolean)).toBe(true);
    expect(counters).toEqual({ made: 64, closed: 64 });
  });

  it('derives task ids whose trailing integer is the data_idx', async () => {
    const { url } = await serve();
    const definition = agentGymHttpDefinition(url, { spec: fakeSpec });
    expect(definition.tasks('test')).toEqual(['fake-counter_0', 'fake-counter_1']);
    expect(definition.tasks('train')[0]).toBe('fake-counter_2');
    const env = definition.make();
    envs.push(env);
    expect((await env.reset({ taskId: 'fake-counter_2' })).observation).toContain('count to 4');
    expect(await rejection(env.reset({ taskId: 'no-number' }))).toMatchObject({ code: 'TASK_UNKNOWN' });
    expect(await rejection(env.reset({ taskId: 'x_99' }))).toMatchObject({ code: 'TASK_UNKNOWN' });
  });

  it('rejects with ENV_LOST when the server goes away mid-episode', async () => {
    const server = await serve();
    const env = client(server.url);
    await env.reset({ taskId: 'counter_1' });
    await env.step('inc');
    await server.close();
    expect(await rejection(env.step('inc'))).toMatchObject({ code: 'ENV_LOST' });
    const never = client('http://127.0.0.1:1');
    expect(await rejection(never.reset({ taskId: 'counter_0' }))).toMatchObject({ code: 'ENV_LOST' });
  });

  it('rejects with ENV_TIMEOUT past the call deadline', async () => {
    const { url } = await serve({ definition: fakeCounterDefinition({ stepDelayMs: 5000 }) });
    const env = client(url, { callTimeoutMs: 250 });
    await env.reset({ taskId: 'counter_0' });
    const started = performance.now();
    expect(await rejection(env.step('inc'))).toMatchObject({ code: 'ENV_TIMEOUT' });
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it('leaves no sockets or timers behind', async () => {
    // Idle keep-alive client sockets are unref'd and not listed, so the client's sockets are
    // seen through their server ends; call deadlines are ref'd timers and would be listed.
    const count = (kind: string) => process.getActiveResourcesInfo().filter((k) => k === kind).length;
    const settled = async (kind: string, want: number) => {
      for (let i = 0; i < 100 && count(kind) > want; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      return count(kind);
    };
    await new Promise((resolve) => setTimeout(resolve, 50)); // earlier tests' handles finish closing
    const before = { sockets: count('TCPSocketWrap'), servers: count('TCPServerWrap'), timers: count('Timeout') };
    const server = await startAgentGymHttpServer({ port: 0, definition: fakeCounterDefinition(), idleTtlMs: 1000 });
    const env = createAgentGymHttpEnv(server.url, { spec: fakeSpec, taskIndex: (id) => order.dataIdxOf(id) ?? -1 });
    await env.reset({ taskId: 'counter_0' });
    await env.step('inc');
    expect(count('TCPSocketWrap')).toBeGreaterThan(before.sockets);
    await env.close();
    // Other handles of the test process may close meanwhile, so "no more than before".
    expect(await settled('TCPSocketWrap', before.sockets)).toBeLessThanOrEqual(before.sockets); // the server saw the client hang up
    await server.close();
    expect(await settled('TCPServerWrap', before.servers)).toBeLessThanOrEqual(before.servers);
    expect(count('Timeout')).toBeLessThanOrEqual(before.timers);
  });
});
