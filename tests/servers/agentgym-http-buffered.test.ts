/**
 * Issue 40, finding 2, on the AgentGym HTTP port: clients that pipeline requests and never read
 * the replies. The process's buffered-bytes budget holds (its stats, not RSS): a socket over its
 * share is served no more until it reads, one past the total is closed, and meanwhile `/readyz`
 * and an honest client are answered.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withBigObservations } from '../../bench/big-observations.ts';
import { startAgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { OutboundBudget } from '../../servers/listener/outbound-budget.ts';
import { fakeCounterDefinition } from '../transport/agentgym-fake-env.ts';
import { request } from '../transport/agentgym-http-request.ts';

const servers: { close(): Promise<void> }[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function post(url: string, body: unknown): Promise<any> {
  const reply = await request(url, { body });
  expect(reply.status).toBe(200);
  return reply.json as any;
}

/** A socket that sends `count` pipelined `GET /observation` of instance `id` and never reads a byte. */
async function neverReading(port: number, id: number, count: number): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  sockets.push(socket);
  socket.on('error', () => {});
  socket.pause();
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`GET /observation?id=${id} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(count));
  return socket;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An honest AgentGym client's episode: create, reset, step, close. */
async function honestEpisode(url: string): Promise<boolean> {
  const { id } = await post(`${url}/create`, {});
  await post(`${url}/reset`, { id, data_idx: 0 });
  const stepped = await post(`${url}/step`, { id, action: 'inc' });
  return (await post(`${url}/close`, { id })) === true && typeof stepped.observation === 'string';
}

describe('AgentGym HTTP: never-reading clients and the buffered-bytes budget (issue 40)', () => {
  it('serves a socket over its share no more, holding the server within the budget; /readyz and an honest client still answer', async () => {
    const total = 8 * 1024 * 1024;
    const reply = 512 * 1024;
    const server = await startAgentGymHttpServer({ port: 0, definition: withBigObservations(fakeCounterDefinition(), reply), maxTotalBufferedBytes: total });
    servers.push(server);
    // 8 sockets × 40 pipelined replies of 512 KiB: 160 MiB asked for, none read.
    for (let i = 0; i < 8; i++) {
      const { id } = await post(`${server.url}/create`, {});
      await post(`${server.url}/reset`, { id, data_idx: 0 });
      await neverReading(server.port, id, 40);
    }
    await until(() => server.stats().peakBufferedBytes > reply);
    // Time for every reply the server would compute to be computed (not a timing assertion).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await request(`${server.url}/readyz`)).status).toBe(200);
    expect(await honestEpisode(server.url)).toBe(true);
    const stats = server.stats();
    // Each socket holds at most its share or one reply beyond it; the rest waits unserved.
    expect(stats.peakBufferedBytes).toBeLessThanOrEqual(total + 8 * reply);
    expect(stats.requestsWaiting).toBeGreaterThan(8 * 20);
    expect(stats.bufferClosed).toBe(0);
  }, 20_000);

  it('closes a socket over its share once the total is passed', async () => {
    const reply = 1024 * 1024;
    const server = await startAgentGymHttpServer({ port: 0, definition: withBigObservations(fakeCounterDefinition(), reply), maxTotalBufferedBytes: 2 * reply });
    servers.push(server);
    for (let i = 0; i < 6; i++) {
      const { id } = await post(`${server.url}/create`, {});
      await post(`${server.url}/reset`, { id, data_idx: 0 });
      await neverReading(server.port, id, 30);
    }
    await until(() => server.stats().bufferClosed > 0);
    expect((await request(`${server.url}/readyz`)).status).toBe(200);
    expect(await honestEpisode(server.url)).toBe(true);
    expect(server.stats().peakBufferedBytes).toBeGreaterThan(2 * reply);
  }, 20_000);

  it('shares one budget with the env server of the same process, as `actorgym serve` does', async () => {
    const reply = 512 * 1024;
    const outbound = new OutboundBudget(64 * 1024 * 1024, 8 * 1024 * 1024, 1024 * 1024);
    const definition = withBigObservations(fakeCounterDefinition(), reply);
    const env = await startEnvServer({ port: 0, resolveEnv: () => definition, outbound });
    servers.push(env);
    const server = await startAgentGymHttpServer({ port: 0, definition, outbound });
    servers.push(server);
    for (let i = 0; i < 4; i++) {
      const { id } = await post(`${server.url}/create`, {});
      await post(`${server.url}/reset`, { id, data_idx: 0 });
      await neverReading(server.port, id, 20);
    }
    await until(() => server.stats().requestsWaiting > 0 && env.stats().peakBufferedBytes > reply);
    expect(env.stats().peakBufferedBytes).toBe(server.stats().peakBufferedBytes);
  }, 20_000);
});
