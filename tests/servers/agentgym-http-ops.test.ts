/**
 * Issue 24 on the AgentGym HTTP endpoint: browser Origins (finding 4), idle sockets never closed
 * and limits that were per connection only (finding 5), and the operable-server work: probes,
 * a graceful drain, JSON log lines.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer, type AgentGymHttpServerOptions } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { agentGymTaskOrder, createAgentGymHttpEnv } from '../../transport/remote/agentgym-http-env.ts';
import { fakeCounterDefinition, fakeSpec } from '../transport/agentgym-fake-env.ts';
import { request } from '../transport/agentgym-http-request.ts';

const servers: AgentGymHttpServer[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<AgentGymHttpServerOptions> = {}): Promise<AgentGymHttpServer> {
  const server = await startAgentGymHttpServer({ port: 0, definition: fakeCounterDefinition(), ...options });
  servers.push(server);
  return server;
}

/** A raw TCP connection; `closed` settles when the server (or anything) ends it. */
async function connect(port: number): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  sockets.push(socket);
  socket.on('error', () => {});
  // Flowing, so the server's FIN is read and 'close' follows even with no data listener.
  socket.resume();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, closed };
}

/** POST /create {} through `agent` (a keep-alive socket that stays admitted). */
function requestWith(url: string, agent: http.Agent): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('AgentGym HTTP endpoint: browser origins (issue 24, finding 4)', () => {
  it('refuses a foreign page, its preflight too, and creates nothing; programs and allowed origins pass', async () => {
    const server = await serve({ allowOrigins: ['https://lab.example'] });
    const evil = { origin: 'https://evil.example' };
    const refused = await request(`${server.url}/create`, { body: {}, headers: evil });
    expect(refused).toMatchObject({ status: 403, json: { code: 'FORBIDDEN_ORIGIN' } });
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect((await request(`${server.url}/step`, { method: 'OPTIONS', headers: { ...evil, 'access-control-request-method': 'POST' } })).status).toBe(403);
    expect(server.stats().instances).toBe(0);

    const preflight = await request(`${server.url}/create`, { method: 'OPTIONS', headers: { origin: 'https://lab.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://lab.example');
    const allowed = await request(`${server.url}/create`, { body: {}, headers: { origin: 'https://lab.example' } });
    expect(allowed).toMatchObject({ status: 200, json: { id: 0 } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://lab.example');
    expect((await request(`${server.url}/create`, { body: {} })).json).toEqual({ id: 1 }); // no Origin: a program
    expect((await request(`${server.url}/create`, { body: {}, headers: { origin: `http://127.0.0.1:${server.port}` } })).status).toBe(200); // its own loopback page
  });
});

describe('AgentGym HTTP endpoint: sockets and server-wide limits (issue 24, finding 5)', () => {
  it('closes sockets that never send a request, or never finish one, while an honest client plays on', async () => {
    const server = await serve({ headersTimeoutMs: 300 });
    const idle = await Promise.all(Array.from({ length: 50 }, () => connect(server.port)));
    const slow = await connect(server.port);
    slow.socket.write('POST /create HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // a header never finished
    const order = agentGymTaskOrder(fakeCounterDefinition());
    const env = createAgentGymHttpEnv(server.url, { spec: fakeSpec, taskIndex: (id) => order.dataIdxOf(id) ?? -1 });
    await env.reset({ taskId: 'counter_1' });
    for (let i = 0; i < 3; i++) await env.step('inc');
    await env.close();
    await Promise.all([...idle, slow].map(({ closed }) => closed));
    expect(server.stats().instances).toBe(0); // the honest client closed its own; the idle ones made none
  });

  it('closes idle keep-alive sockets after keepAliveTimeoutMs', async () => {
    const server = await serve({ keepAliveTimeoutMs: 200 });
    const { socket, closed } = await connect(server.port);
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
    socket.write('POST /create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}');
    await closed;
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(reply).toContain('{"id":0}');
  });

  // Issue 40 split the cap: idle sockets have their own budget and never fill maxConnections.
  it('caps admitted sockets: a request on a new socket past maxConnections gets 503; idle ones never count', async () => {
    const server = await serve({ maxConnections: 2, maxPendingConnections: 4, keepAliveTimeoutMs: 60_000 });
    const idle = await Promise.all(Array.from({ length: 8 }, () => connect(server.port)));
    await Promise.all(idle.slice(0, 4).map(({ closed }) => closed)); // the oldest four made room
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const second = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (agent: http.Agent) => requestWith(`${server.url}/create`, agent);
    expect(await post(keepAlive)).toMatchObject({ status: 200 });
    expect(await post(second)).toMatchObject({ status: 200 });
    expect(await request(`${server.url}/create`, { body: {} })).toMatchObject({ status: 503, json: { code: 'TOO_MANY_CONNECTIONS' } });
    expect(await post(keepAlive)).toMatchObject({ status: 200 }); // an admitted socket goes on
    second.destroy();
    await until(() => server.stats().connections <= 5);
    expect(await request(`${server.url}/create`, { body: {} })).toMatchObject({ status: 200 });
    keepAlive.destroy();
  });
});

describe('AgentGym HTTP endpoint: probes, drain and JSON logs (issue 24)', () => {
  it('answers /healthz and /readyz without a token; ready means below the instance cap and not draining', async () => {
    const server = await serve({ token: 'secret', maxInstances: 1 });
    expect(await request(`${server.url}/healthz`)).toMatchObject({ status: 200, json: { status: 'ok', ready: true, instances: 0 } });
    expect(await request(`${server.url}/readyz`)).toMatchObject({ status: 200, json: { ready: true } });
    await request(`${server.url}/create`, { body: {}, headers: { authorization: 'Bearer secret' } });
    expect(await request(`${server.url}/readyz`)).toMatchObject({ status: 503, json: { ready: false, reason: 'at capacity' } });
    expect((await request(`${server.url}/healthz`)).status).toBe(200);
  });

  it('drains on request: running requests finish, new connections are refused, then every instance closes', async () => {
    const counters = { made: 0, closed: 0 };
    const server = await serve({ definition: fakeCounterDefinition({ counters, stepDelayMs: 200 }) });
    await request(`${server.url}/create`, { body: {} });
    await request(`${server.url}/reset`, { body: { id: 0, data_idx: 0 } });
    const running = request(`${server.url}/step`, { body: { id: 0, action: 'inc' } });
    await until(() => server.stats().requestsInFlight === 1);
    const drained = server.drain(30_000);
    expect(server.stats().draining).toBe(true);
    await expect(request(`${server.url}/create`, { body: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const finished = await running;
    expect(finished).toMatchObject({ status: 200, json: { observation: expect.stringContaining('Counter 1') } });
    expect(finished.headers.connection).toBe('close');
    await drained;
    expect(counters).toEqual({ made: 1, closed: 1 });
  });

  it('bounds the drain: a request still running at the deadline is cut and the server closes', async () => {
    const server = await serve({ definition: fakeCounterDefinition({ stepDelayMs: 60_000 }) });
    await request(`${server.url}/create`, { body: {} });
    await request(`${server.url}/reset`, { body: { id: 0, data_idx: 0 } });
    const stuck = request(`${server.url}/step`, { body: { id: 0, action: 'inc' } });
    await until(() => server.stats().requestsInFlight === 1);
    await server.drain(100);
    await expect(stuck).rejects.toMatchObject({ code: 'ECONNRESET' });
    await until(() => server.stats().connections === 0);
    expect(server.stats().instances).toBe(0);
  });

  it('writes one JSON line per connection and instance event with --log-json', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createOpsLog({ server: 'agentgym-http', enabled: true, write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const server = await serve({ token: 'secret', log, maxInstancesPerClient: 1 });
    const auth = { authorization: 'Bearer secret' };
    await request(`${server.url}/create`, { body: {}, headers: auth });
    await request(`${server.url}/create`, { body: {}, headers: auth });
    await request(`${server.url}/create`, { body: {} });
    await until(() => lines.filter((line) => line['event'] === 'connection.closed').length === 3);
    await server.close();
    const events = lines.map((line) => line['event']);
    expect(events).toEqual(expect.arrayContaining(['server.listening', 'connection.opened', 'instance.created', 'instance.refused', 'request.refused', 'connection.closed', 'instance.closed', 'server.closed']));
    expect(lines.find((line) => line['event'] === 'instance.refused')).toMatchObject({ server: 'agentgym-http', reason: 'client-limit' });
    expect(lines.find((line) => line['event'] === 'request.refused')).toMatchObject({ reason: 'token', path: '/create' });
    expect(JSON.stringify(lines)).not.toContain('secret'); // owners are logged as token hashes
  });
});
