/**
 * Issue 24, finding 1: `serve --token T --agentgym-http Q` left the AgentGym HTTP endpoint open
 * (create/reset/step with no or a wrong token → 200), any client could step or close another's
 * instance (sequential ids), and one client could fill the 4,096-instance cap for everyone.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer, type AgentGymHttpServerOptions } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { agentGymTaskOrder, createAgentGymHttpEnv } from '../../transport/remote/agentgym-http-env.ts';
import { fakeCounterDefinition, fakeSpec } from '../transport/agentgym-fake-env.ts';
import { basic, bearer, request } from '../transport/agentgym-http-request.ts';

const servers: AgentGymHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<AgentGymHttpServerOptions> = {}): Promise<AgentGymHttpServer> {
  const server = await startAgentGymHttpServer({ port: 0, definition: fakeCounterDefinition(), ...options });
  servers.push(server);
  return server;
}

const TOKEN = 'the-right-token';

describe('AgentGym HTTP endpoint with a token (issue 24, finding 1)', () => {
  it('answers 401 to no or a wrong token on every route and creates nothing', async () => {
    const counters = { made: 0, closed: 0 };
    const server = await serve({ token: TOKEN, definition: fakeCounterDefinition({ counters }) });
    const before = server.stats().instances;
    const wrong = [{}, bearer('wrong'), basic('wrong'), { authorization: 'Token the-right-token' }];
    for (const headers of wrong) {
      for (const [route, body] of [['/create', {}], ['/reset', { id: 0, data_idx: 0 }], ['/step', { id: 0, action: 'inc' }], ['/close', { id: 0 }]] as const) {
        const reply = await request(`${server.url}${route}`, { body, headers });
        expect(reply.status, `${route} ${JSON.stringify(headers)}`).toBe(401);
        expect(reply.json).toMatchObject({ code: 'UNAUTHORIZED' });
        expect(reply.headers['www-authenticate']).toContain('Bearer');
      }
      expect((await request(`${server.url}/observation?id=0`, { headers })).status).toBe(401);
    }
    expect((await request(`${server.url}/token/wrong/create`, { body: {} })).status).toBe(401);
    expect((await request(`${server.url}/create?token=wrong`, { body: {} })).status).toBe(401);
    expect(server.stats().instances).toBe(before);
    expect(counters.made).toBe(0);
  });

  it('takes the token as Bearer, as a Basic password (.netrc), as a /token/T base-URL prefix and as ?token=', async () => {
    const server = await serve({ token: TOKEN });
    const ids = new Set<number>();
    for (const [base, headers] of [
      [server.url, bearer(TOKEN)],
      [server.url, basic(TOKEN)],
      [`${server.url}/token/${TOKEN}`, {}],
    ] as const) {
      const { id } = (await request(`${base}/create`, { body: {}, headers })).json as { id: number };
      ids.add(id);
      expect((await request(`${base}/reset`, { body: { id, data_idx: 0 }, headers })).json).toMatchObject({ done: false });
      expect((await request(`${base}/step`, { body: { id, action: 'inc' }, headers })).json).toMatchObject({ observation: expect.stringContaining('Counter 1') });
      expect((await request(`${base}/observation?id=${id}`, { headers })).json).toContain('Counter 1');
    }
    const { id } = (await request(`${server.url}/create?token=${TOKEN}`, { body: {} })).json as { id: number };
    ids.add(id);
    // Random, not 0, 1, 2, 3: a client sharing the token cannot guess another's id.
    expect(ids.size).toBe(4);
    for (const value of ids) expect(Number.isSafeInteger(value) && value > 0).toBe(true);
    expect([...ids].sort()).not.toEqual([0, 1, 2, 3]);
    expect(server.stats().instances).toBe(4);
  });

  it("plays whole episodes through actorgym's client with the token in the base URL", async () => {
    const server = await serve({ token: TOKEN });
    const order = agentGymTaskOrder(fakeCounterDefinition());
    const env = createAgentGymHttpEnv(`${server.url}/token/${TOKEN}`, { spec: fakeSpec, taskIndex: (id) => order.dataIdxOf(id) ?? -1 });
    await env.reset({ taskId: 'counter_0' });
    await env.step('inc');
    expect((await env.step('inc')).terminated).toBe(true);
    await env.close();
  });

  it("keeps one token's instances from another: reset, step, observation and close see an unknown id", async () => {
    const server = await serve({ token: ['token-a', 'token-b'] });
    const a = bearer('token-a');
    const b = bearer('token-b');
    const { id } = (await request(`${server.url}/create`, { body: {}, headers: a })).json as { id: number };
    await request(`${server.url}/reset`, { body: { id, data_idx: 0 }, headers: a });
    const unknown = { code: 'ENV_CLOSED', error: expect.stringContaining(`The id ${id} is not valid`) };
    expect((await request(`${server.url}/step`, { body: { id, action: 'inc' }, headers: b })).json).toMatchObject(unknown);
    expect((await request(`${server.url}/reset`, { body: { id, data_idx: 1 }, headers: b })).json).toMatchObject(unknown);
    expect((await request(`${server.url}/observation?id=${id}`, { headers: b })).json).toMatchObject({ code: 'ENV_CLOSED' });
    expect((await request(`${server.url}/close`, { body: { id }, headers: b })).json).toBe(false);
    // The owner's episode went on untouched: still at its first reset, one step from the start.
    expect((await request(`${server.url}/step`, { body: { id, action: 'inc' }, headers: a })).json).toMatchObject({ observation: expect.stringContaining('Counter 1 of 2') });
    expect((await request(`${server.url}/close`, { body: { id }, headers: a })).json).toBe(true);
  });

  it('caps instances per client and server-wide: one client filling its quota leaves room for another', async () => {
    const server = await serve({ token: ['token-a', 'token-b'], maxInstances: 5, maxInstancesPerClient: 3 });
    const create = (token: string) => request(`${server.url}/create`, { body: {}, headers: bearer(token) });
    for (let i = 0; i < 3; i++) expect((await create('token-a')).json).toHaveProperty('id');
    expect((await create('token-a')).json).toMatchObject({ code: 'TOO_MANY_INSTANCES', error: expect.stringContaining('maxInstancesPerClient=3') });
    expect((await create('token-b')).json).toHaveProperty('id');
    expect((await create('token-b')).json).toHaveProperty('id');
    expect((await create('token-b')).json).toMatchObject({ code: 'TOO_MANY_INSTANCES', error: expect.stringContaining('maxInstances=5') });
    expect((await request(`${server.url}/readyz`)).status).toBe(503);
    expect(server.stats().instances).toBe(5);
  });
});

describe('AgentGym HTTP endpoint without a token (issue 24, finding 1)', () => {
  it('counts the quota per remote address; instances belong to no one, as documented', async () => {
    const server = await serve({ maxInstancesPerClient: 2 });
    const create = (localAddress: string) => request(`${server.url}/create`, { body: {}, localAddress });
    expect((await create('127.0.0.1')).json).toEqual({ id: 0 });
    expect((await create('127.0.0.1')).json).toEqual({ id: 1 });
    expect((await create('127.0.0.1')).json).toMatchObject({ code: 'TOO_MANY_INSTANCES' });
    expect((await create('127.0.0.2')).json).toEqual({ id: 2 });
    // No token, no owner: any client that reaches the port may use any id (listen on loopback, or set a token).
    expect((await request(`${server.url}/close`, { body: { id: 0 }, localAddress: '127.0.0.2' })).json).toBe(true);
    expect((await create('127.0.0.1')).json).toEqual({ id: 3 });
  });
});

// AgentGym's Python clients (agentenv/envs/*.py) call module-level `requests.post(f"{base}/create")`
// and never send a header; this is the same client in miniature, run once per (base URL, netrc)
// pair in one interpreter (requests reads NETRC at every call).
const AGENTGYM_STYLE_CLIENT = `
import json, os, sys, requests
def episode(base):
    created = requests.post(f"{base}/create", timeout=10)
    if created.status_code != 200:
        return {"status": created.status_code}
    env_id = created.json()["id"]
    reset = requests.post(f"{base}/reset", json={"id": env_id, "data_idx": 0}, timeout=10).json()
    step = requests.post(f"{base}/step", json={"id": env_id, "action": "inc"}, timeout=10).json()
    seen = requests.get(f"{base}/observation?id={env_id}", timeout=10).json()
    return {"status": 200, "reset": reset["observation"], "step": step["observation"], "seen": seen}
runs = []
for base, netrc in json.loads(sys.argv[1]):
    os.environ["NETRC"] = netrc
    runs.append(episode(base))
print(json.dumps(runs))
`;
const hasPythonRequests = spawnSync('python3', ['-c', 'import requests'], { stdio: 'ignore' }).status === 0;
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-netrc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type PythonRun = { status: number; reset?: string; step?: string; seen?: string };

function runPythonClient(runs: readonly (readonly [base: string, netrc: string])[]): Promise<PythonRun[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_PROXY: '*', no_proxy: '*' };
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy']) delete env[name];
  return new Promise((resolve, reject) => {
    execFile('python3', ['-c', AGENTGYM_STYLE_CLIENT, JSON.stringify(runs)], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as PythonRun[]);
    });
  });
}

describe.skipIf(!hasPythonRequests)("AgentGym's Python clients, unmodified, with a token (issue 24, finding 1)", () => {
  it('pass the token from a netrc file (NETRC) or in the base URL; without it they get 401', async () => {
    const server = await serve({ token: TOKEN });
    const none = path.join(dir, 'none');
    writeFileSync(none, '');
    const netrc = path.join(dir, 'netrc');
    writeFileSync(netrc, `machine 127.0.0.1 login actorgym password ${TOKEN}\n`, { mode: 0o600 });

    const played = { status: 200, reset: expect.stringContaining('count to 2'), step: expect.stringContaining('Counter 1'), seen: expect.stringContaining('Counter 1') };
    expect(await runPythonClient([[server.url, none], [server.url, netrc], [`${server.url}/token/${TOKEN}`, none]])).toEqual([{ status: 401 }, played, played]);
    expect(server.stats().instances).toBe(2);
  });

  it('work with no token set, as against AgentGym\'s own servers', async () => {
    const server = await serve();
    expect(await runPythonClient([[server.url, path.join(dir, 'absent')]])).toEqual([expect.objectContaining({ status: 200, step: expect.stringContaining('Counter 1') })]);
  });
});
