/**
 * Issue 40, finding 3: `train --out DIR` on a directory that held a run started over and wrote a
 * new checkpoint over the old one. Now `train` and `sft` refuse before anything runs, naming the
 * step found and the command that continues the run; `eval --out` on a training run refuses too;
 * a directory with no checkpoint (a run killed before its first one) may still be started over.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findExistingRun } from '../../actors/training/existing-run.ts';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-out-refuse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '128', '--backend', 'wasm', '--learner-threads', '1', '--no-dashboard'];
const SFT_TINY = ['--d-model', '16', '--layers', '1', '--heads', '2', '--ff', '32', '--history-turns', '0', '--learner-threads', '1', '--no-dashboard'];
const manifestStep = (run: string) => (JSON.parse(readFileSync(path.join(run, 'checkpoint', 'manifest.json'), 'utf8')) as { step: number }).step;

describe('--out on a directory that holds a run', () => {
  it('train and sft refuse it, naming the step and the command that continues the run; eval refuses a training run', async () => {
    const rl = path.join(dir, 'rl');
    const sft = path.join(dir, 'sft');
    const demos = path.join(dir, 'demos.jsonl');
    const [trained, collected] = await Promise.all([
      runCli(['train', '--env', 'babyai', '--steps', '2', '--eval-episodes', '0', '--out', rl, ...TINY]),
      runCli(['collect', '--env', 'babyai', '--agent', 'oracle', '--episodes', '4', '--out', demos]),
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(collected.code, collected.stderr).toBe(0);
    const cloned = await runCli(['sft', '--env', 'babyai', '--demos', demos, '--epochs', '1', '--eval-episodes', '0', '--out', sft, ...SFT_TINY]);
    expect(cloned.code, cloned.stderr).toBe(0);
    const before = readFileSync(path.join(rl, 'checkpoint', 'manifest.json'), 'utf8');

    const again = ['train', '--env', 'babyai', '--steps', '3', '--eval-episodes', '0', '--out', rl, ...TINY];
    const [train, trainOnSft, sftAgain, sftOnRl, evalOnRl] = await Promise.all([
      runCli(again),
      runCli(['train', '--env', 'babyai', '--steps', '1', '--out', sft, ...TINY]),
      runCli(['sft', '--env', 'babyai', '--demos', demos, '--epochs', '2', '--out', sft, ...SFT_TINY]),
      runCli(['sft', '--env', 'babyai', '--demos', demos, '--out', rl, ...SFT_TINY]),
      runCli(['eval', '--agent', 'random', '--env', 'babyai', '--tasks', '2', '--out', rl]),
    ]);
    expect(train.code).toBe(1);
    expect(train.stderr).toContain(`actorgym: error: --out ${rl} already holds a training run at step 2 (checkpoint ${path.join(rl, 'checkpoint')}); a new run would overwrite it. Continue it with:\n` +
      `  npx actorgym train --env babyai --steps 3 --eval-episodes 0 ${TINY.join(' ')} --resume ${rl}\n`);
    expect(trainOnSft.code).toBe(1);
    expect(trainOnSft.stderr).toMatch(new RegExp(`--out ${sft} already holds an SFT run at epoch 1 .*Start RL from its weights with --init ${sft} and another --out`));
    expect(sftAgain.code).toBe(1);
    expect(sftAgain.stderr).toContain(`already holds an SFT run at epoch 1`);
    expect(sftAgain.stderr).toContain(`  npx actorgym sft --env babyai --demos ${demos} --epochs 2 ${SFT_TINY.join(' ')} --resume ${sft}\n`);
    expect(sftOnRl.code).toBe(1);
    expect(sftOnRl.stderr).toMatch(/already holds a training run at step 2 .*Give another --out for the SFT run/);
    expect(evalOnRl.code).toBe(1);
    expect(evalOnRl.stderr).toMatch(/EVAL_CONFIG_MISMATCH|holds another evaluation/);
    // Nothing was written over.
    expect(readFileSync(path.join(rl, 'checkpoint', 'manifest.json'), 'utf8')).toBe(before);
    expect(manifestStep(rl)).toBe(2);
    expect(manifestStep(sft)).toBe(1);
  }, 180_000);

  it('finds a run by its checkpoint (or checkpoint.old after a crash), and none in a directory without one', async () => {
    const killed = path.join(dir, 'killed');
    mkdirSync(path.join(killed, 'trajectories'), { recursive: true });
    writeFileSync(path.join(killed, 'config.json'), '{}\n');
    writeFileSync(path.join(killed, 'metrics.jsonl'), '{"step":1}\n');
    expect(await findExistingRun(killed)).toBeUndefined();
    expect(await findExistingRun(path.join(dir, 'nothing-here'))).toBeUndefined();
    const crashed = path.join(dir, 'crashed');
    mkdirSync(path.join(crashed, 'checkpoint.old'), { recursive: true });
    writeFileSync(path.join(crashed, 'checkpoint.old', 'manifest.json'), JSON.stringify({ format: 'actorgym-checkpoint', version: 1, step: 7, files: {} }));
    expect(await findExistingRun(crashed)).toMatchObject({ step: 7, kind: 'rl', checkpoint: path.join(crashed, 'checkpoint.old') });
  });
});
