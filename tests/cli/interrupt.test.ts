/**
 * Issue 26: Ctrl-C (SIGINT) is honoured while episodes run — in `rollout`, in `eval` and in the
 * final test evaluation of `train` — and a training stopped mid-run prints the exact command that
 * continues it, which does. Each interrupted command prints what finished and exits 130.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from './spawn-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1', '--context', '128', '--backend', 'wasm', '--no-dashboard'];

/** Splits a printed shell command into arguments (the quoting resumeCommand writes). */
function shellWords(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : (m[2] as string)));
}

describe('Ctrl-C', () => {
  it('stops a rollout: the summary of what finished, then exit 130', async () => {
    // Far more episodes than run before the signal: one at a time, the split repeated.
    const cli = spawnCli(['rollout', '--env', 'babyai', '--episodes', '100000', '--repeat', '--concurrency', '1', '--json']);
    await cli.waitForStderr(/--repeat: 100000 episodes/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.done;
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/stopping: no new episodes; running ones end as aborted \(Ctrl-C again to quit at once\)/);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ slots: 100000, interrupted: true });
    expect(summary.episodes).toBeLessThan(100000);
    expect(stderr).toContain(`interrupted: ${summary.episodes - summary.outcomes.aborted} of 100000 episodes finished and scored`);
  });

  it('stops an evaluation, keeps what finished, and the same command continues it', async () => {
    const out = path.join(dir, 'eval');
    const args = ['eval', '--agent', 'random', '--env', 'babyai', '--samples', '40', '--concurrency', '1', '--out', out, '--json'];
    const cli = spawnCli(args);
    // Wait until episodes are being written.
    const episodes = path.join(out, 'episodes.jsonl');
    for (let i = 0; i < 600 && !(existsSync(episodes) && readFileSync(episodes, 'utf8').split('\n').length > 3); i += 1) await new Promise((r) => setTimeout(r, 50));
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.done;
    expect(code, stderr).toBe(130);
    const results = JSON.parse(stdout);
    expect(results.complete).toBe(false);
    const done = 90 * 40 - results.missing;
    expect(done).toBeGreaterThan(0);
    expect(stderr).toContain(`interrupted: ${done} of 3600 (task, sample) pairs have a result in ${out}; re-run the same command to finish`);
    expect(JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'))).toEqual(results);
    expect(readFileSync(episodes, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(done);

    const again = spawnCli(args);
    await again.waitForStderr(new RegExp(`resuming ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${done} of 3600 \\(task, sample\\) pairs done`));
    again.child.kill('SIGINT');
    expect((await again.done).code).toBe(130);
  });

  it('stops a training after the current step and prints the --resume command, which continues it', async () => {
    const out = path.join(dir, 'train');
    const cli = spawnCli(['train', '--env', 'babyai', '--steps', '500', '--eval-episodes', '2', '--out', out, ...TINY]);
    await cli.waitForStderr(/step 1\/500 /);
    cli.child.kill('SIGINT');
    const first = await cli.done;
    expect(first.code, first.stderr).toBe(130);
    expect(first.stderr).toMatch(/stopping after the current learner step, with a checkpoint/);
    const printed = /continue it with:\n {2}(.+)\n/.exec(first.stderr)?.[1];
    expect(printed, first.stderr).toBe(`npx actorgym train --env babyai --steps 500 --eval-episodes 2 ${TINY.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a}'`)).join(' ')} --resume ${out}`);
    const stoppedAt = Number(/interrupted after learner step (\d+)/.exec(first.stderr)?.[1]);
    expect(stoppedAt).toBeGreaterThanOrEqual(1);

    // The printed command, as a user would paste it, resumes from that step.
    const [npx, actorgym, ...args] = shellWords(printed as string);
    expect([npx, actorgym]).toEqual(['npx', 'actorgym']);
    const resumed = spawnCli(args);
    await resumed.waitForStderr(new RegExp(`resumed at step ${stoppedAt}`));
    await resumed.waitForStderr(new RegExp(`step ${stoppedAt + 1}/500 `));
    resumed.child.kill('SIGINT');
    const second = await resumed.done;
    expect(second.code, second.stderr).toBe(130);
    expect(second.stderr).toContain(`continue it with:\n  ${printed}\n`);
  });

  it('stops the final test evaluation of a training', async () => {
    const out = path.join(dir, 'train-eval');
    const cli = spawnCli(['train', '--env', 'babyai', '--steps', '1', '--concurrency', '1', '--eval-horizon', '20', '--out', out, '--json', ...TINY]);
    await cli.waitForStderr(/evaluating on the test split/);
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.done;
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/stopping the test evaluation: no new episodes/);
    const summary = JSON.parse(stdout);
    expect(summary.status).toBe('done');
    expect(summary.evaluation.slots).toBe(90);
    expect(summary.evaluation.episodes).toBeLessThan(90);
    const { success, failure, truncated } = summary.evaluation.outcomes;
    expect(stderr).toContain(`interrupted during the test evaluation: ${success + failure + truncated} of 90 test episodes scored`);
    expect(stderr).toContain(`evaluate it in full with: npx actorgym eval --checkpoint ${out}`);
  });
});
