import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../cli/run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-dashboard-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:2', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1', '--context', '128', '--backend', 'wasm', '--eval-episodes', '0'];

describe('actorgym dashboard / train --dashboard (issue 6)', () => {
  it('explains bad input instead of crashing: nothing to show, a missing run directory, a URL that is not ws://', async () => {
    const [none, missing, url] = await Promise.all([
      runCli(['dashboard']),
      runCli(['dashboard', '--run', path.join(dir, 'nowhere'), '--port', '0']),
      runCli(['dashboard', '--connect', 'http://example.org', '--port', '0']),
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/nothing to show: give --run DIR .* or --connect ws:\/\/HOST:PORT/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/RUN_DIR_MISSING: no run directory at .*nowhere/);
    expect(url.code).toBe(1);
    expect(url.stderr).toMatch(/BAD_URL: --connect wants a ws:\/\/ or wss:\/\/ URL/);
  });

  it('train serves the dashboard and prints its URL; dashboard --run then serves the finished run until Ctrl-C', async () => {
    const run = path.join(dir, 'run');
    const train = await runCli(['train', '--env', 'babyai', '--steps', '2', '--out', run, '--json', ...TINY]);
    expect(train.code, train.stderr).toBe(0);
    expect(train.stderr).toMatch(/dashboard: http:\/\/127\.0\.0\.1:\d+\//);
    expect(JSON.parse(train.stdout)).toMatchObject({ status: 'done', steps: 2 });

    const child = spawn(process.execPath, [BIN, 'dashboard', '--run', run, '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 60_000;
    while (!stdout.trim().endsWith('}') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const served = JSON.parse(stdout) as { url: string; runs: { id: string; label: string; status: string }[] };
    expect(served.runs).toMatchObject([{ label: 'run', kind: 'dir', status: '2 steps logged', hasTrajectories: true, env: 'babyai' }]);
    const steps = await (await fetch(new URL(`/api/runs/${served.runs[0]!.id}/steps`, served.url))).json();
    expect(steps).toEqual([1, 2]);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
