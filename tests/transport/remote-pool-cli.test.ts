/**
 * `--remote` with several servers, `--env-timeout` on the connection's start-up calls, and
 * `--max-aborted`, through the real `actorgym` entry point (issue 24, findings 2, 3 and 9).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startChildServer, type ChildServer } from '../../bench/stats.ts';
import { runCli } from '../cli/run-cli.ts';

const servers: ChildServer[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function serve(): Promise<string> {
  const server = await startChildServer(['babyai', '--port', '0']);
  servers.push(server);
  return server.urls[0] as string;
}

describe('actorgym rollout --remote URL,URL', () => {
  it('spreads the episodes over the servers, with the same results as in-process, and reports each server', async () => {
    const [a, b] = await Promise.all([serve(), serve()]);
    const args = ['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '40', '--seed', '5', '--json'];
    const [local, remote] = await Promise.all([runCli(args), runCli([...args, '--remote', `${a},${b}`])]);
    expect(remote.code, remote.stderr).toBe(0);
    const summary = JSON.parse(remote.stdout);
    expect(summary.results).toEqual(JSON.parse(local.stdout).results);
    expect(summary).toMatchObject({ slots: 40, abortedShare: 0, abortedAttempts: 0 });
    expect(summary.servers.map((s: { url: string }) => s.url)).toEqual([a, b]);
    expect(summary.servers.every((s: { placed: number; losses: number }) => s.placed > 0 && s.losses === 0)).toBe(true);
  });
});

describe('issue 24 finding 9: --env-timeout reaches the start-up calls', () => {
  it('fails with ENV_TIMEOUT after --env-timeout when the server never answers spec, not after a fixed 30 s', async () => {
    const silent = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => new Promise((resolve) => silent.close(resolve)));
    await new Promise((resolve) => silent.once('listening', resolve));
    silent.on('connection', (socket) => socket.on('error', () => undefined));
    const url = `ws://127.0.0.1:${(silent.address() as { port: number }).port}`;
    // The CLI is killed at 20 s: before the fix it waited the fixed 30 s and failed this test.
    const { code, stderr } = await runCli(['rollout', '--env', 'babyai', '--remote', url, '--env-timeout', '300', '--json'], 20_000);
    expect(code).toBe(1);
    expect(stderr).toMatch(/actorgym: error: ENV_TIMEOUT: spec got no reply within 300 ms/);
  });
});
