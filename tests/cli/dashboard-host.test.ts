/**
 * Issue 40, finding 5: `--dashboard-host 0.0.0.0` without a token served run data (and the event
 * port) to the network, although `--help` said it requires `--token`; and the dashboard refused
 * this machine's own host name, which `--help` says it answers to. Now nothing starts beyond
 * loopback without a token, and the machine's names pass the Host check wherever it is bound.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'actorgym-dashboard-host-'));
const run = path.join(dir, 'run');
mkdirSync(run);
writeFileSync(path.join(run, 'metrics.jsonl'), '');
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** No ACTORGYM_TOKEN from the environment the tests run in. */
const { ACTORGYM_TOKEN: _unset, ...env } = process.env;
const withoutToken = (args: string[]) => new Promise<{ code: number; stderr: string }>((resolve) => {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('close', (code) => resolve({ code: code ?? 1, stderr }));
});

/** Starts `actorgym dashboard … --json` and resolves with its port once it serves. */
function serveDashboard(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dashboard', '--run', run, '--port', '0', '--json', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /"url": "http:\/\/[^:]+:(\d+)\//.exec(stdout);
      if (match) resolve(Number(match[1]));
    });
    child.on('close', (code) => reject(new Error(`dashboard exited ${code}: ${stderr}`)));
  });
}

function statusFor(port: number, host: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { host, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) };
    http.get({ host: '127.0.0.1', port, path: '/api/runs', headers, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('dashboard host and token', () => {
  it('refuses to start beyond loopback without a token: dashboard, train --dashboard-host, and --events-port there', async () => {
    const out = path.join(dir, 'never');
    const TINY = ['--steps', '1', '--tasks-per-step', '1', '--group-size', '2', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '128', '--backend', 'wasm', '--out', out];
    const [dashboard, train, eventsOnly] = await Promise.all([
      withoutToken(['dashboard', '--run', run, '--host', '0.0.0.0', '--port', '0']),
      withoutToken(['train', '--env', 'babyai', '--dashboard-host', '0.0.0.0', ...TINY]),
      withoutToken(['train', '--env', 'babyai', '--no-dashboard', '--events-port', '0', '--dashboard-host', '0.0.0.0', ...TINY]),
    ]);
    expect(dashboard.code).toBe(1);
    expect(dashboard.stderr).toMatch(/actorgym: error: --host 0\.0\.0\.0 is beyond loopback: a dashboard or event stream there needs a token/);
    for (const refused of [train, eventsOnly]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/actorgym: error: --dashboard-host 0\.0\.0\.0 is beyond loopback: .*give --token T \(or ACTORGYM_TOKEN\)/);
      expect(refused.stderr).not.toMatch(/dashboard: http|live events:/);
    }
    expect(existsSync(out)).toBe(false); // refused before the run started
  }, 120_000);

  it('answers to this machine\'s host name on loopback and beyond (with the token), and not to another name', async () => {
    const [loopback, wildcard] = await Promise.all([serveDashboard([]), serveDashboard(['--host', '0.0.0.0', '--token', 'T0ken-host-test'])]);
    expect(await statusFor(loopback, `${os.hostname()}:${loopback}`)).toBe(200);
    expect(await statusFor(loopback, `evil.example:${loopback}`)).toBe(403);
    expect(await statusFor(wildcard, `${os.hostname()}:${wildcard}`, 'T0ken-host-test')).toBe(200);
    expect(await statusFor(wildcard, `${os.hostname()}:${wildcard}`)).toBe(401);
    expect(await statusFor(wildcard, `evil.example:${wildcard}`, 'T0ken-host-test')).toBe(403);
  }, 60_000);
});
