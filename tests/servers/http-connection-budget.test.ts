/**
 * Issue 40, finding 1, on the HTTP servers that had no budget of unauthenticated sockets: the
 * policy server, the rollout service and the dashboard (servers/listener/http-connection-budget.ts).
 * Each, with a token and small caps: 200 idle sockets from one address or over 127.0.0.0/8 (reopened
 * as the server closes them) lock no honest client out; idle sockets, health probes' and refused
 * requests' sockets go by the deadline while an admitted one stays; past `maxConnections` a request
 * on a new socket gets 503 `TOO_MANY_CONNECTIONS`.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startIdleFlood } from '../../bench/flood-peers.ts';
import { startDashboard } from '../../dashboard/server/dashboard-server.ts';
import type { HttpConnectionLimits } from '../../servers/listener/http-connection-budget.ts';
import { listenPolicy } from '../../servers/policy-server/policy-server.ts';
import { startRolloutServer } from '../../servers/rollout-server/rollout-server.ts';
import { bearer, request } from '../transport/agentgym-http-request.ts';
import { until } from '../transport/raw-peer.ts';

const TOKEN = 's3cret';

interface Served {
  readonly port: number;
  /** The path of an honest request, its body (POST) or none (GET), and whether its reply is a success. */
  readonly honest: { readonly path: string; readonly body?: unknown; readonly ok: (status: number, json: unknown) => boolean };
  /** A GET that passes the token check, and its status (the rollout service's only GET routes are the probes: 405 past the token). */
  readonly admittedGet: { readonly path: string; readonly status: number };
  close(): Promise<void>;
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** The three servers, each started in-process on port 0 with the token and the given limits. */
const SERVERS: Record<string, (limits: HttpConnectionLimits) => Promise<Served>> = {
  'policy server': async (limits) => {
    const serving = {
      served: { close: () => {} },
      completion: { answer: () => Promise.reject(new Error('not used here')) },
      modelId: 'budget-test',
      detail: () => ({}),
    };
    const server = await listenPolicy({ port: 0, token: TOKEN, ...limits }, serving);
    const ok = (status: number, json: unknown) => status === 200 && (json as { object?: string }).object === 'list';
    return { port: server.port, honest: { path: '/v1/models', ok }, admittedGet: { path: '/v1/models', status: 200 }, close: () => server.close() };
  },
  'rollout service': async (limits) => {
    // A runner that ends every batch at once: what is under test is the way in, not the episodes.
    const runner = () => ({ done: Promise.resolve({ ok: true as const, summary: { episodes: 0 } }), cancel: () => {} });
    const server = await startRolloutServer({ port: 0, token: TOKEN, runner, ...limits });
    const body = { env: 'babyai', count: 1, horizon: 1, policy: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', tokenizer: 'hf:unused' } };
    const ok = (status: number, text: unknown) => status === 200 && typeof text === 'string' && text.includes('"type":"done"');
    return { port: server.port, honest: { path: '/v1/rollouts', body, ok }, admittedGet: { path: '/v1/rollouts', status: 405 }, close: () => server.close() };
  },
  dashboard: async (limits) => {
    const server = await startDashboard({ port: 0, token: TOKEN, ...limits });
    const ok = (status: number, json: unknown) => status === 200 && Array.isArray(json);
    return { port: server.port, honest: { path: '/api/runs', ok }, admittedGet: { path: '/api/runs', status: 200 }, close: () => server.close() };
  },
};

async function start(kind: string, limits: HttpConnectionLimits): Promise<Served> {
  const served = await (SERVERS[kind] as (limits: HttpConnectionLimits) => Promise<Served>)(limits);
  cleanup.push(() => served.close());
  return served;
}

/** The honest request on a fresh connection, with the token; true when it succeeded. */
async function honest(served: Served): Promise<boolean> {
  const { path, body, ok } = served.honest;
  const reply = await request(`http://127.0.0.1:${served.port}${path}`, { headers: bearer(TOKEN), ...(body !== undefined ? { body } : {}) }).catch(() => undefined);
  return reply !== undefined && ok(reply.status, reply.json);
}

/** A GET on a connection kept open after its reply (until the server closes it, or cleanup). */
async function heldRequest(port: number, path: string, headers: http.OutgoingHttpHeaders = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  cleanup.push(() => agent.destroy());
  let socket: Socket | undefined;
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.get(`http://127.0.0.1:${port}${path}`, { agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('socket', (s) => (socket = s as Socket));
    req.once('error', reject);
  });
  const held = socket as Socket;
  const state = { closed: held.destroyed };
  held.once('close', () => (state.closed = true));
  return { status, state };
}

describe('HTTP servers keep a budget of unauthenticated sockets (issue 40, finding 1)', () => {
  for (const kind of Object.keys(SERVERS)) {
    for (const from of ['one', 'spread'] as const) {
      it(`${kind}: answers 10 of 10 honest requests past 200 idle sockets from ${from === 'one' ? 'one address' : '127.0.0.0/8'}`, async () => {
        // A pending cap of 32 (8 per address) so that 200 sockets are far past it.
        const served = await start(kind, { maxConnections: 16, maxPendingConnections: 32, maxPendingPerAddress: 8 });
        const idle = await startIdleFlood({ port: served.port, count: 200, from });
        cleanup.push(() => idle.stop());
        let succeeded = 0;
        for (let i = 0; i < 10; i++) if (await honest(served)) succeeded++;
        expect(succeeded).toBe(10);
        expect(idle.closedByServer()).toBeGreaterThanOrEqual(200 - 32);
      }, 15_000);
    }

    it(`${kind}: closes idle sockets and a health probe's by the deadline, keeps an admitted one, refuses past maxConnections`, async () => {
      const served = await start(kind, { handshakeTimeoutMs: 300, maxConnections: 2 });
      const idle = await startIdleFlood({ port: served.port, count: 10, from: 'spread', reopen: false });
      cleanup.push(() => idle.stop());
      const probe = await heldRequest(served.port, '/healthz');
      const wrongToken = await heldRequest(served.port, served.admittedGet.path, bearer('wrong'));
      const first = await heldRequest(served.port, served.admittedGet.path, bearer(TOKEN));
      expect([probe.status, wrongToken.status, first.status]).toEqual([200, 401, served.admittedGet.status]);
      // Idle, probed and refused sockets are pending, and go by the deadline; the admitted one stays.
      await until(() => idle.open() === 0 && probe.state.closed && wrongToken.state.closed, 3_000);
      expect(idle.closedByServer()).toBe(10);
      await new Promise((resolve) => setTimeout(resolve, 400)); // past the admitted socket's own deadline too
      expect(first.state.closed).toBe(false);
      // A second admitted socket fills maxConnections; a request on a third gets 503.
      const second = await heldRequest(served.port, served.admittedGet.path, bearer(TOKEN));
      expect(second.status).toBe(served.admittedGet.status);
      const refused = await request(`http://127.0.0.1:${served.port}${served.honest.path}`, { headers: bearer(TOKEN) });
      expect(refused.status).toBe(503);
      expect(JSON.stringify(refused.json)).toContain('"code":"TOO_MANY_CONNECTIONS"');
      expect(refused.headers.connection).toBe('close');
    }, 10_000);
  }
});
