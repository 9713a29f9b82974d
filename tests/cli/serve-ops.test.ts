/**
 * `actorgym serve` as an operator runs it (issue 24, findings 4 and 5): idle sockets closed by
 * the handshake deadline while a real `rollout --remote` succeeds, a graceful drain on SIGTERM
 * (readyz 503, running episodes finish, peers closed with 1001, exit 0), JSON log lines, and the
 * warning for a non-loopback host without a token. The real entry point, in a child process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../bench/stats.ts';
import { getJson, openIdleSockets, refusal, type IdleSocket } from '../transport/http-probe.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';
import { runCli } from './run-cli.ts';

let server: ChildServer | undefined;
const sockets: IdleSocket[] = [];
afterEach(async () => {
  for (const idle of sockets.splice(0)) idle.socket.destroy();
  await server?.stop();
  server = undefined;
});

const portOf = (url: string) => Number(new URL(url).port);

describe('actorgym serve under attack and in operation', () => {
  it('closes 300 idle sockets by the handshake deadline while a real rollout --remote succeeds (issue 24, finding 5)', async () => {
    server = await startChildServer(['babyai', '--port', '0', '--handshake-timeout', '1500']);
    const url = server.urls[0] as string;
    const port = portOf(url);
    // 300 connections that never complete a handshake: half silent, half trickling a header.
    const attack = async () => {
      const opened = [
        ...(await openIdleSockets(port, 150)),
        ...(await openIdleSockets(port, 150, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n')),
      ];
      sockets.push(...opened);
      return opened;
    };
    const first = await attack();
    const rollout = runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '24', '--seed', '3', '--json', '--remote', url]);
    // The attacker keeps 300 such sockets open while the rollout runs (bounded rounds).
    let rolloutDone = false;
    void rollout.finally(() => (rolloutDone = true));
    for (let round = 0; round < 10 && !rolloutDone; round++) {
      await until(() => rolloutDone || sockets.every((s) => s.closed), 20_000);
      if (!rolloutDone) await attack();
    }
    const { code, stdout, stderr } = await rollout;
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.episodes).toBe(24);
    await until(() => sockets.every((s) => s.closed), 20_000);
    expect(first.every((s) => s.closed)).toBe(true);
  }, 120_000);

  it('drains on SIGTERM: not ready, refuses new work, lets the running episode finish, closes with 1001, exits 0', async () => {
    server = await startChildServer(['babyai', '--port', '0', '--drain-timeout', '30000', '--log-json']);
    const { child } = server;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = server.urls[0] as string;
    expect(await getJson(url, '/readyz')).toMatchObject({ status: 200, body: { ready: true } });

    const peer = await RawPeer.open(url);
    const tasks = (await peer.call({ id: 1, op: 'tasks', env: 'babyai', split: 'test' })).result.tasks as string[];
    const instance = (await peer.call({ id: 2, op: 'create', env: 'babyai' })).result.instance as string;
    expect(await peer.call({ id: 3, op: 'reset', instance, taskId: tasks[0], seed: 1 })).toMatchObject({ op: 'result' });

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await until(() => stderr.includes('"server.draining"'), 20_000);
    expect(await getJson(url, '/readyz')).toMatchObject({ status: 503, body: { ready: false, reason: 'draining' } });
    expect((await getJson(url, '/healthz')).status).toBe(200);
    expect(await refusal(url)).toMatchObject({ status: 503, body: { error: { code: 'SERVER_DRAINING' } } });
    expect(await peer.call({ id: 4, op: 'create', env: 'babyai' })).toMatchObject({ op: 'error', error: { code: 'SERVER_DRAINING' } });

    // The episode under way goes on to its end, by the env's own oracle.
    let id = 10;
    for (let turn = 0; turn < 64; turn++) {
      const action = (await peer.call({ id: id++, op: 'oracle', instance })).result.action as string;
      const step = await peer.call({ id: id++, op: 'step', instance, action });
      expect(step.op).toBe('result');
      if (step.result.terminated || step.result.truncated) break;
    }
    expect(await peer.closed).toBe(1001);
    expect(await exited).toBe(0);

    const lines = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(lines).toContainEqual(expect.objectContaining({ server: 'env', event: 'connection.opened', peer: expect.any(String) }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'connection.refused', status: 503, reason: 'SERVER_DRAINING' }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'connection.closed', instances: 1 }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'server.drained' }));
    expect(stderr).not.toMatch(/warning/); // loopback needs no token
    server = undefined;
  }, 60_000);

  it('warns when it listens beyond loopback without a token', async () => {
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: the listen fails after the warning, nothing is exposed.
    const args = ['serve', 'babyai', '--port', '0', '--host', '192.0.2.1'];
    const [open, guarded] = await Promise.all([runCli(args), runCli([...args, '--token', 't'])]);
    expect(open.stderr).toMatch(/warning: listening on 192\.0\.2\.1 without --token/);
    expect(open.code).not.toBe(0);
    expect(guarded.stderr).not.toMatch(/warning/);
  });
});
