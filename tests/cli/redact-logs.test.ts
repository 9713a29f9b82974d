/**
 * Issue 40, finding 6: a refused request was logged with its raw path, so a client that put the
 * token in the wrong place — `/TOKEN/T/…`, an absolute-form request line `GET http://host/…`, a
 * near-miss of the token — wrote it into the operators' JSON log. Every server kind a command
 * opens with --log-json gets every refused request kind here, through the real CLI, and its whole
 * output is searched for the token.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redactText, secretForms } from '../../servers/listener/redact.ts';
import { BIN } from './run-cli.ts';

const TOKEN = 'S3cret-redact-probe-7f';
const dir = mkdtempSync(path.join(os.tmpdir(), 'actorgym-redact-'));
const run = path.join(dir, 'run');
mkdirSync(run);
writeFileSync(path.join(run, 'metrics.jsonl'), '');
const { ACTORGYM_TOKEN: _unset, ...env } = process.env;

interface Served {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  output(): string;
}
const served: Served[] = [];
afterAll(() => {
  for (const s of served) s.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a command and resolves once its output shows a URL matching `ready` (its port in group 1). */
function start(name: string, args: string[], ready: RegExp): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = ready.exec(text);
      if (match) {
        const s: Served = { name, child, port: Number(match[1]), output: () => text };
        served.push(s);
        resolve(s);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => reject(new Error(`${name} exited ${code} before it served:\n${text}`)));
  });
}

/** Sends one raw request (its request line and headers as written) and resolves with the status line. */
function raw(port: number, lines: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk.toString()));
    socket.on('error', () => resolve(reply.split('\r\n')[0] ?? ''));
    socket.on('close', () => resolve(reply.split('\r\n')[0] ?? ''));
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    setTimeout(() => socket.destroy(), 1_500);
  });
}

const UPGRADE = ['Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='];

/** Every refused request kind, each carrying the token (or a near miss of it) where it does not belong. */
function refusedKinds(port: number): Record<string, string[]> {
  const host = `Host: 127.0.0.1:${port}`;
  return {
    'bad token path': [`GET /token/${TOKEN}x/create HTTP/1.1`, host],
    'near-miss path': [`GET /TOKEN/${TOKEN}/create HTTP/1.1`, host],
    'bare token segment': [`GET /${TOKEN}/create HTTP/1.1`, host],
    'absolute-form request line': [`GET http://127.0.0.1:${port}/token/${TOKEN}x/create?token=${TOKEN}x HTTP/1.1`, host],
    'absolute-form with user-info': [`GET http://actorgym:${TOKEN}x@127.0.0.1:${port}/create HTTP/1.1`, host],
    'token in query': [`GET /create?token=${TOKEN}x HTTP/1.1`, host],
    'WebSocket upgrade with wrong token': [`GET /live?token=${TOKEN}x HTTP/1.1`, host, ...UPGRADE],
    'WebSocket upgrade, token in the path': [`GET /TOKEN/${TOKEN}/live HTTP/1.1`, host, ...UPGRADE],
    'wrong Origin': [`GET /live?token=${TOKEN} HTTP/1.1`, host, 'Origin: http://evil.example', ...UPGRADE],
    'wrong Origin, plain request': [`GET /token/${TOKEN}/create HTTP/1.1`, host, 'Origin: http://evil.example'],
    'wrong Host': [`GET /api/runs?token=${TOKEN} HTTP/1.1`, `Host: evil.example:${port}`],
  };
}

describe('no token in any log line (issue 40, finding 6)', () => {
  it('redacts token segments, token= values, user-info and the server\'s own tokens', () => {
    const forms = secretForms([TOKEN, 'ab']);
    expect(redactText(`/TOKEN/${TOKEN}x/create?a=1&token=${TOKEN}#f`, forms)).toBe('/TOKEN/[redacted]/create?a=1&token=[redacted]#f');
    expect(redactText(`http://u:${encodeURIComponent(`${TOKEN}/+`)}@h/x`, [])).toBe('http://[redacted]@h/x');
    expect(redactText(`/${TOKEN}/create`, forms)).toBe('/[redacted]/create');
    expect(redactText('Bearer abc.def', [])).toBe('Bearer [redacted]');
    // A short token is left to the place-based rules: "ab" stays in "tab".
    expect(redactText('tab /token/ab', forms)).toBe('tab /token/[redacted]');
  });

  it('every server kind, every refused request kind, through the CLI', async () => {
    const servers = await Promise.all([
      start('serve (env WebSocket + AgentGym HTTP)', ['serve', 'babyai', '--port', '0', '--agentgym-http', '0', '--token', TOKEN, '--log-json'], /AgentGym HTTP protocol on http:\/\/[^:]+:(\d+)/),
      start('dashboard', ['dashboard', '--run', run, '--host', '0.0.0.0', '--port', '0', '--token', TOKEN, '--log-json', '--json'], /"url": "http:\/\/[^:]+:(\d+)/),
      start('rollout-server', ['rollout-server', '--port', '0', '--token', TOKEN, '--log-json'], /rollout-server: listening on http:\/\/[^:]+:(\d+)/),
      start('events (rollout --events-port)', ['rollout', '--env', 'babyai', '--episodes', '100000', '--repeat', '--concurrency', '1', '--json',
        '--events-port', '0', '--wait-subscribers', '0', '--token', TOKEN, '--log-json'], /live events: ws:\/\/[^:]+:(\d+)/),
    ]);
    // serve's env WebSocket port is on its first ready line.
    const serve = servers[0] as Served;
    const wsPort = Number(/babyai listening on ws:\/\/[^:]+:(\d+)/.exec(serve.output())?.[1]);
    const ports = [...servers.map((s) => s.port), wsPort];
    const statuses: string[] = [];
    for (const port of ports) for (const lines of Object.values(refusedKinds(port))) statuses.push(await raw(port, lines));
    // Each kind was refused (or not found), never served.
    expect(statuses.filter((s) => / 101 /.test(s))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const s of servers) s.child.kill('SIGINT');
    await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode !== null ? resolve(null) : s.child.once('close', resolve)))));

    const logs = servers.map((s) => ({ name: s.name, lines: s.output().split('\n').filter((line) => line.startsWith('{"t":')) }));
    for (const { name, lines } of logs) {
      expect(lines.join('\n'), name).not.toContain(TOKEN);
      expect(lines.join('\n').toLowerCase(), name).not.toContain(TOKEN.toLowerCase());
    }
    for (const s of servers) expect(s.output(), s.name).not.toContain(TOKEN);
    // The loggers did log the refusals (so the search above had something to search).
    const refused = (server: string) => logs.flatMap((l) => l.lines).filter((line) => line.includes(`"server":"${server}"`) && /refused/.test(line));
    expect(refused('agentgym-http').length).toBeGreaterThanOrEqual(8);
    expect(refused('dashboard').length).toBeGreaterThanOrEqual(8);
    expect(refused('env').length).toBeGreaterThanOrEqual(3);
    expect(refused('events').length).toBeGreaterThanOrEqual(3);
    expect(refused('agentgym-http').join('\n')).toContain('[redacted]');
  }, 120_000);
});
