import { spawn } from 'node:child_process';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../bench/stats.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { BIN, runCli } from './run-cli.ts';

let server: ChildServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('actorgym rollout --remote', () => {
  it('runs against `actorgym serve` with the same results as in-process', async () => {
    server = await startChildServer(['babyai', '--port', '0']);
    const args = ['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '20', '--seed', '5', '--json'];
    const [local, remote] = await Promise.all([runCli(args), runCli([...args, '--remote', server.urls[0] as string])]);
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout).results).toEqual(JSON.parse(local.stdout).results);
  });

  // Issue 24, finding 3: a server killed early left most slots aborted, and the command said 0.93
  // success and exited 0. Now it prints its summary, then why it fails, and exits 1.
  it('reports episodes aborted by a killed server, prints its summary, and exits 1 past --max-aborted', async () => {
    server = await startChildServer(['babyai', '--port', '0']);
    const child = spawn(
      process.execPath,
      [BIN, 'rollout', '--env', 'babyai', '--agent', 'random', '--split', 'train', '--concurrency', '4', '--json', '--events-port', '0', '--server-wait', '200', '--remote', server.urls[0] as string],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const eventsUrl = await new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /live events: (ws:\S+)/.exec(stderr);
        if (match) resolve(match[1] as string);
      });
    });
    // Kill the env server once the run is under way.
    await firstValueFrom(observeRun(eventsUrl, { types: ['episode.finished'] }).pipe(filter((e) => e.type === 'episode.finished'), take(10), toArray()));
    server.child.kill('SIGKILL');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const summary = JSON.parse(stdout);
    expect(summary.outcomes.aborted).toBeGreaterThan(0);
    expect(summary.outcomes.success + summary.outcomes.failure + summary.outcomes.truncated).toBeGreaterThanOrEqual(10);
    expect(summary.episodes).toBe(1440);
    expect(summary.abortedShare).toBeGreaterThan(0.05);
    expect(stderr).toMatch(/episode\(s\) aborted by infrastructure failures/);
    expect(stderr).toMatch(/actorgym: error: \d+\.\d% of task slots have no scored outcome \(\d+ of 1440; aborted attempts: env_lost \d+\), over --max-aborted 5\.0%\n/);
    expect(stderr).not.toMatch(/Error:|at .*\.ts:\d+/);
  });

  it('fails with a clear message when the server is not there', async () => {
    const { code, stderr } = await runCli(['rollout', '--env', 'babyai', '--remote', 'ws://127.0.0.1:1', '--json']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/actorgym: error: ENV_LOST/);
  });
});
