/**
 * Issue 37: a worker process killed (SIGKILL) in the middle of a run — the learner hands what it
 * held to the other worker and the run ends with every step trained.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from './spawn-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-learner-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '4', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '96', '--backend', 'wasm'];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('a worker killed mid-run', () => {
  it('leaves its groups to the other worker; every step is trained on four whole groups', async () => {
    const port = await freePort();
    const out = path.join(dir, 'run');
    const learner = spawnCli(['learner', '--port', String(port), '--steps', '3', '--out', out, '--eval-episodes', '1', '--json', '--no-dashboard', '--worker-log-json', ...TINY]);
    await learner.waitForStderr(/listening for workers/);
    const url = `ws://127.0.0.1:${port}`;
    const doomed = spawnCli(['worker', '--learner', url, '--name', 'doomed', '--backend', 'wasm']);
    const survivor = spawnCli(['worker', '--learner', url, '--name', 'survivor', '--backend', 'wasm']);
    // The doomed worker starts its step-2 assignment with version 1: kill it there.
    const started = await Promise.race([doomed.waitForStderr(/sampling with version 1/).then(() => true), learner.done.then(() => false)]);
    expect(started, 'the doomed worker never got a step-2 assignment').toBe(true);
    doomed.child.kill('SIGKILL');
    const trained = await learner.done;
    expect(trained.code, trained.stderr).toBe(0);
    expect(JSON.parse(trained.stdout)).toMatchObject({ status: 'done', steps: 3 });
    expect(trained.stderr).toMatch(/"event":"worker.left","worker":"doomed"/);
    // It died holding step 2's groups: they were handed out again, not lost.
    expect(trained.stderr).toMatch(/"event":"assignment.requeued","id":"a\d+","step":2,"groups":"[\d,]+","why":"worker doomed left"/);
    for (const step of [1, 2, 3]) {
      const episodes = readFileSync(path.join(out, 'trajectories', `step-00000${step}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      // Four groups of G = 2: every slot 0–7 has its scored episode.
      expect(new Set(episodes.filter((e) => e.outcome !== 'aborted').map((e) => e.slot))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
    }
    survivor.child.kill('SIGTERM');
    expect((await survivor.done).stdout).toMatch(/stopped after \d+ assignment/);
  }, 120_000);
});
