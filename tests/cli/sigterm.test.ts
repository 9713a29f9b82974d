/**
 * Issue 40, finding 3: SIGTERM (kill, a scheduler's preemption) made `train` exit 143 without a
 * checkpoint, losing up to --checkpoint-every steps. Now it takes Ctrl-C's path: the run stops
 * after its current learner step, writes a checkpoint, prints the command that continues it and
 * exits 130; that command resumes from the step it stopped at.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';
import { spawnCli } from './spawn-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-sigterm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '128', '--backend', 'wasm', '--learner-threads', '1', '--no-dashboard'];

describe('SIGTERM during train', () => {
  it('checkpoints after the current step, exits 130, and --resume continues from that step', async () => {
    const out = path.join(dir, 'run');
    // --checkpoint-every 0: without the stop's own checkpoint there would be none before step 500.
    const cli = spawnCli(['train', '--env', 'babyai', '--steps', '500', '--checkpoint-every', '0', '--eval-episodes', '0', '--out', out, ...TINY]);
    await cli.waitForStderr(/step 1\/500 /);
    cli.child.kill('SIGTERM');
    const stopped = await cli.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('stopping after the current learner step, with a checkpoint (SIGTERM received; another SIGTERM or Ctrl-C quits at once)');
    const step = Number(/interrupted after learner step (\d+), checkpoint /.exec(stopped.stderr)?.[1]);
    expect(step).toBeGreaterThanOrEqual(1);
    const manifest = JSON.parse(readFileSync(path.join(out, 'checkpoint', 'manifest.json'), 'utf8')) as { step: number };
    expect(manifest.step).toBe(step);
    expect(stopped.stderr).toContain(`continue it with:\n  npx actorgym train --env babyai --steps 500 --checkpoint-every 0 --eval-episodes 0 ${TINY.join(' ')} --resume ${out}\n`);

    const resumed = await runCli(['train', '--env', 'babyai', '--resume', out, '--steps', String(step + 1), '--eval-episodes', '0', '--json', ...TINY]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done', fromStep: step, steps: step + 1 });
  }, 180_000);
});
