/**
 * Issue 37: `actorgym learner` and `actorgym worker` through the real entry point — a learner
 * trains two steps whose groups a worker process collects, then the worker stops on SIGTERM.
 * Until the training system takes a producer (TrainingOptions.producer), the learner refuses to
 * run instead of training in its own process.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';
import { spawnCli } from './spawn-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-learner-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '96', '--backend', 'wasm'];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('actorgym learner + worker', () => {
  it('a learner trains two steps on the groups a worker process collects', async () => {
    const port = await freePort();
    const out = path.join(dir, 'run');
    const learner = spawnCli(['learner', '--port', String(port), '--worker-token', 'T', '--steps', '2', '--out', out, '--eval-episodes', '2', '--json', '--no-dashboard', ...TINY]);
    await learner.waitForStderr(/listening for workers on ws:\/\/127\.0\.0\.1:\d+/);
    const worker = spawnCli(['worker', '--learner', `ws://127.0.0.1:${port}`, '--token', 'T', '--name', 'w1', '--backend', 'wasm']);
    const trained = await learner.done;
    expect(trained.code, trained.stderr).toBe(0);
    expect(JSON.parse(trained.stdout)).toMatchObject({ status: 'done', steps: 2 });
    const metrics = readFileSync(path.join(out, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(metrics).toHaveLength(2);
    expect(readdirSync(path.join(out, 'trajectories')).sort()).toEqual(['step-000001.jsonl', 'step-000002.jsonl']);
    worker.child.kill('SIGTERM');
    const stopped = await worker.done;
    expect(stopped.stderr).toMatch(/welcomed as w1, policy version 0/);
    expect(stopped.stderr).toMatch(/sampling with version 1/);
    expect(stopped.stdout).toMatch(/stopped after 2 assignment\(s\), 4 group\(s\)/);

    // The same run in one process trains on the same groups: the same losses and rates, step by step.
    const local = path.join(dir, 'local');
    const one = await runCli(['train', '--steps', '2', '--out', local, '--eval-episodes', '2', '--json', '--no-dashboard', ...TINY]);
    expect(one.code, one.stderr).toBe(0);
    const KEYS = ['step', 'horizon', 'successRate', 'meanReward', 'meanTurns', 'lossPolicy', 'lossKl', 'lossEntropy', 'loss', 'kl', 'entropy', 'clipFraction', 'gradNorm', 'policyVersion'];
    const maths = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((line) => {
      const metrics = JSON.parse(line) as Record<string, unknown>;
      return KEYS.map((key) => [key, metrics[key]]);
    });
    const distributed = maths(path.join(out, 'metrics.jsonl'));
    expect(distributed.flat().every(([, value]) => typeof value === 'number')).toBe(true);
    expect(distributed).toEqual(maths(path.join(local, 'metrics.jsonl')));
  }, 120_000);

  it('a worker refuses a learner URL that is not ws://', async () => {
    const bad = await runCli(['worker', '--learner', 'http://x:1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--learner must be a ws:\/\/ or wss:\/\/ URL/);
  });
});
