/**
 * Issue 35, small habits: a resumed run says where it picks up, and its final table counts the
 * whole run (every step and the training time before the resume), not only the resumed session.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secondsBefore } from '../../cli/whole-run.ts';
import { runCli } from './run-cli.ts';
import { spawnCli } from './spawn-cli.ts';

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1', '--context', '128', '--backend', 'wasm', '--no-dashboard'];
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-resume-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the final table after a resume (issue 35)', () => {
  it('counts the steps and training seconds of the whole run', async () => {
    const out = path.join(dir, 'train');
    const first = await runCli(['train', '--env', 'babyai', '--steps', '2', '--eval-episodes', '2', '--out', out, ...TINY]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^babyai, grpo, 2 learner steps \(done\) on tfjs-wasm in \d+ s\n/);
    const second = await runCli(['train', '--env', 'babyai', '--steps', '4', '--eval-episodes', '2', '--resume', out, ...TINY]);
    expect(second.code, second.stderr).toBe(0);
    const seconds = Number(/^babyai, grpo, 4 learner steps \(done, resumed at step 2\) on tfjs-wasm in (\d+) s\n/.exec(second.stdout)?.[1]);
    // The printed time holds every step's rollout and learning seconds, those before the resume too.
    const allSteps = secondsBefore(readFileSync(path.join(out, 'metrics.jsonl'), 'utf8'), 4);
    expect(seconds, second.stdout).toBeGreaterThanOrEqual(Math.floor(allSteps));
    expect(allSteps).toBeGreaterThan(secondsBefore(readFileSync(path.join(out, 'metrics.jsonl'), 'utf8'), 2));
  });
});

describe('the start banner (issue 35)', () => {
  it('says "from scratch" for a new run and "resuming from step N" for a resumed one', async () => {
    const out = path.join(dir, 'start');
    const fresh = spawnCli(['start', '--no-dashboard', '--out', out]);
    await fresh.waitForStderr(/step 1\/60 /);
    fresh.child.kill('SIGINT');
    const stopped = await fresh.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/^training GRPO on BabyAI from scratch: 60 learner steps, /);
    const at = Number(/interrupted after learner step (\d+)/.exec(stopped.stderr)?.[1]);
    expect(at).toBeGreaterThanOrEqual(1);

    const resumed = spawnCli(['start', '--no-dashboard', '--resume', out]);
    await resumed.waitForStderr(new RegExp(`step ${at + 1}/60 `));
    resumed.child.kill('SIGINT');
    const again = await resumed.done;
    expect(again.code, again.stderr).toBe(130);
    expect(again.stderr).toMatch(new RegExp(`^training GRPO on BabyAI resuming from step ${at} of 60, `, 'm'));
    expect(again.stderr).not.toMatch(/from scratch/);
  }, 240_000);
});

describe('secondsBefore', () => {
  it('sums rollout and learning seconds up to a step, a step written twice once, a cut line skipped', () => {
    const lines = [
      { step: 1, rolloutSeconds: 1, learnSeconds: 2 },
      { step: 2, rolloutSeconds: 4, learnSeconds: 8 },
      { step: 2, rolloutSeconds: 16, learnSeconds: 32 },
      { step: 3, rolloutSeconds: 64, learnSeconds: 128 },
    ].map((row) => JSON.stringify(row));
    const text = `${lines.join('\n')}\n{"step":4,"rollout`;
    expect(secondsBefore(text, 2)).toBe(1 + 2 + 16 + 32);
    expect(secondsBefore(text, 9)).toBe(1 + 2 + 16 + 32 + 64 + 128);
  });
});
