/**
 * The probe of the redaction tests (redact-logs.test.ts, redact-logs-servers.test.ts): commands
 * started with --log-json through the real CLI, every refused request kind sent to their ports,
 * each carrying the token (or a near miss of it) where it does not belong, and their output read back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { expect } from 'vitest';
import { BIN } from './run-cli.ts';

export const TOKEN = 'S3cret-redact-probe-7f';
/** The environment of the commands: no ACTORGYM_TOKEN of the caller's. */
export const { ACTORGYM_TOKEN: _unset, ...probeEnv } = process.env;

export interface Served {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  output(): string;
}

/** Starts a command and resolves once its output shows a URL matching `ready` (its port in group 1); pushes it on `served`. */
export function startServed(served: Served[], name: string, args: string[], ready: RegExp): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: probeEnv, stdio: ['ignore', 'pipe', 'pipe'] });
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
export function raw(port: number, lines: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      // The status is all a probe reads: a kept-alive socket need not wait for its timeout.
      if (reply.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('error', () => resolve(reply.split('\r\n')[0] ?? ''));
    socket.on('close', () => resolve(reply.split('\r\n')[0] ?? ''));
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    setTimeout(() => socket.destroy(), 1_500);
  });
}

const UPGRADE = ['Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='];

/** Every refused request kind, each carrying the token (or a near miss of it) where it does not belong. */
export function refusedKinds(port: number): Record<string, string[]> {
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

/** Sends every refused kind to every port, one after another; the status lines. */
export async function probe(ports: readonly number[]): Promise<string[]> {
  const statuses: string[] = [];
  for (const port of ports) for (const lines of Object.values(refusedKinds(port))) statuses.push(await raw(port, lines));
  return statuses;
}

/** Ctrl-C to every command, then waits until each has exited. */
export async function stopAll(servers: readonly Served[]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const s of servers) s.child.kill('SIGINT');
  await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode !== null ? resolve(null) : s.child.once('close', resolve)))));
}

/** Each command's `--log-json` lines. */
export function logLines(servers: readonly Served[]): { name: string; lines: string[] }[] {
  return servers.map((s) => ({ name: s.name, lines: s.output().split('\n').filter((line) => line.startsWith('{"t":')) }));
}

/** The lines of `server` (its `server` field) that log a refusal. */
export function refusedLines(logs: readonly { lines: string[] }[], server: string): string[] {
  return logs.flatMap((l) => l.lines).filter((line) => line.includes(`"server":"${server}"`) && /refused/.test(line));
}

/** Asserts the token (in any letter case) is in no log line and nowhere else in any command's output; the log lines. */
export function expectNoToken(servers: readonly Served[]): { name: string; lines: string[] }[] {
  const logs = logLines(servers);
  for (const { name, lines } of logs) {
    expect(lines.join('\n'), name).not.toContain(TOKEN);
    expect(lines.join('\n').toLowerCase(), name).not.toContain(TOKEN.toLowerCase());
  }
  for (const s of servers) expect(s.output(), s.name).not.toContain(TOKEN);
  return logs;
}
