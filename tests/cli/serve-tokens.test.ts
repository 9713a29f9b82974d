/**
 * Issue 40, CLI gaps: `serve --token` is repeatable (each token its own client for the per-client
 * instance quotas, on the WebSocket and the AgentGym HTTP port alike), and `rollout`/`eval
 * --remote agentgym+http://` send their `--token` as `Authorization: Bearer`, so actorgym's own
 * server with a token is reachable without putting the token in the URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ChildServer } from '../../bench/stats.ts';
import { bearer, request } from '../transport/agentgym-http-request.ts';
import { RawPeer } from '../transport/raw-peer.ts';
import { serveTokens } from '../../cli/commands/serve.ts';
import { runCli } from './run-cli.ts';
import { serveAgentGym } from './serve-agentgym.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-serve-tokens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ChildServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

/** The status a WebSocket upgrade with `token` gets: 101 when it opens, else the refusal's. */
function upgradeStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
    ws.on('error', () => {});
    ws.once('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
  });
}

describe('serve --token, repeated', () => {
  it('takes every --token, else ACTORGYM_TOKEN as one token (clients send the same variable as it is)', () => {
    expect(serveTokens({ token: ['a1', 'b2'] }, { ACTORGYM_TOKEN: 'env' })).toEqual(['a1', 'b2']);
    expect(serveTokens({ token: [] }, { ACTORGYM_TOKEN: 'x,y' })).toEqual(['x,y']);
    expect(serveTokens({ token: [] }, {})).toEqual([]);
  });

  it('accepts each token on both ports, refuses a third, and counts instance quotas per token', async () => {
    const { server, http } = await serveAgentGym('babyai', servers, ['--token', 'alpha-token', '--token', 'beta-token', '--max-instances-per-client', '1', '--http-max-instances-per-client', '1']);
    const ws = server.urls.find((url) => url.startsWith('ws://')) as string;

    // WebSocket port.
    expect(await upgradeStatus(ws, 'gamma-token')).toBe(401);
    const [a1, a2, b] = await Promise.all([RawPeer.open(ws, { token: 'alpha-token' }), RawPeer.open(ws, { token: 'alpha-token' }), RawPeer.open(ws, { token: 'beta-token' })]);
    try {
      const create = (peer: RawPeer, id: number) => peer.call({ id, op: 'create', env: 'babyai' });
      expect(await create(a1, 1)).toMatchObject({ op: 'result' });
      // The same token over another connection is the same client: its quota of 1 is used.
      expect(await create(a2, 2)).toMatchObject({ error: { code: 'TOO_MANY_INSTANCES' } });
      expect(await create(b, 3)).toMatchObject({ op: 'result' });
    } finally {
      for (const peer of [a1, a2, b]) peer.ws.terminate();
    }

    // AgentGym HTTP port.
    expect((await request(`${http}/create`, { body: {}, headers: bearer('gamma-token') })).status).toBe(401);
    expect((await request(`${http}/create`, { body: {}, headers: bearer('alpha-token') })).json).toHaveProperty('id');
    expect((await request(`${http}/create`, { body: {}, headers: bearer('alpha-token') })).json).toMatchObject({ code: 'TOO_MANY_INSTANCES' });
    expect((await request(`${http}/create`, { body: {}, headers: bearer('beta-token') })).json).toHaveProperty('id');
  }, 60_000);
});

describe('--remote agentgym+http:// with --token', () => {
  it('rollout and eval send the token to a serve --token server; without it they fail naming --token', async () => {
    const { remote } = await serveAgentGym('babyai', servers, ['--token', 'T0ken-agentgym']);
    const { ACTORGYM_TOKEN: _unset, ...env } = process.env;
    const out = path.join(dir, 'eval');
    const [withToken, evaluated, without, wrong] = await Promise.all([
      runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '4', '--seed', '3', '--json', '--remote', remote, '--token', 'T0ken-agentgym'], 60_000, env),
      runCli(['eval', '--env', 'babyai', '--agent', 'random', '--tasks', '2', '--out', out, '--json', '--remote', remote, '--token', 'T0ken-agentgym'], 60_000, env),
      runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '4', '--remote', remote], 60_000, env),
      runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '4', '--remote', remote, '--token', 'wrong-token'], 60_000, env),
    ]);
    expect(withToken.code, withToken.stderr).toBe(0);
    expect(JSON.parse(withToken.stdout)).toMatchObject({ episodes: 4, abortedAttempts: 0 });
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(without.code).not.toBe(0);
    expect(without.stderr).toMatch(/UNAUTHORIZED: .*HTTP 401.*--token/);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/UNAUTHORIZED: .*refused the token given/);
    expect(wrong.stderr).not.toContain('wrong-token');
  }, 120_000);
});
