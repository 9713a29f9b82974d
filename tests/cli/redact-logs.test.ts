/**
 * Issue 40, finding 6: a refused request was logged with its raw path, so a client that put the
 * token in the wrong place — `/TOKEN/T/…`, an absolute-form request line `GET http://host/…`, a
 * near-miss of the token — wrote it into the operators' JSON log. Every server kind a command
 * opens with --log-json gets every refused request kind here, through the real CLI, and its whole
 * output is searched for the token. The learner and the policy server: redact-logs-servers.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redactText, secretForms } from '../../servers/listener/redact.ts';
import { expectNoToken, probe, refusedLines, startServed, stopAll, TOKEN, type Served } from './redact-probe.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'actorgym-redact-'));
const run = path.join(dir, 'run');
mkdirSync(run);
writeFileSync(path.join(run, 'metrics.jsonl'), '');

const served: Served[] = [];
const start = (name: string, args: string[], ready: RegExp) => startServed(served, name, args, ready);
afterAll(() => {
  for (const s of served) s.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

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
    const statuses = await probe(ports);
    // Each kind was refused (or not found), never served.
    expect(statuses.filter((s) => / 101 /.test(s))).toEqual([]);
    await stopAll(servers);

    const logs = expectNoToken(servers);
    // The loggers did log the refusals (so the search above had something to search).
    const refused = (server: string) => refusedLines(logs, server);
    expect(refused('agentgym-http').length).toBeGreaterThanOrEqual(8);
    expect(refused('dashboard').length).toBeGreaterThanOrEqual(8);
    expect(refused('env').length).toBeGreaterThanOrEqual(3);
    expect(refused('events').length).toBeGreaterThanOrEqual(3);
    expect(refused('agentgym-http').join('\n')).toContain('[redacted]');
  }, 120_000);
});
