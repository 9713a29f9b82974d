/**
 * Issue 37, `train --async --max-staleness K --importance-cap C` through the real entry point:
 * bad input fails with one clear line before any training, the settings land in config.json and
 * the checkpoint, and --resume keeps them (a resumed run may not change them).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-async-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '8', '--group-size', '4', '--schedule', 'fixed:8', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1', '--context', '128', '--backend', 'wasm', '--eval-episodes', '0', '--no-dashboard'];
const train = (name: string, args: readonly string[]) => runCli(['train', '--env', 'babyai', '--steps', '1', '--out', path.join(dir, name), ...TINY, ...args]);

describe('train --async flags', () => {
  it.each([
    ['--max-staleness without --async', ['--max-staleness', '2'], /--max-staleness is a setting of asynchronous training: give --async too/],
    ['--importance-cap without --async', ['--importance-cap', '3'], /--importance-cap is a setting of asynchronous training: give --async too/],
    ['a negative staleness', ['--async', '--max-staleness', '-1'], /--max-staleness must be a non-negative integer, got "-1"/],
    ['a fractional staleness', ['--async', '--max-staleness', '1.5'], /--max-staleness must be a non-negative integer, got "1.5"/],
    ['a cap below 1', ['--async', '--importance-cap', '0.5'], /--importance-cap must be a number ≥ 1, got "0.5"/],
    ['a cap that is not a number', ['--async', '--importance-cap', 'two'], /--importance-cap must be a number ≥ 1, got "two"/],
  ])('refuses %s before training', async (name, args, message) => {
    const r = await train(name.replace(/\W+/g, '-'), args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/step 1\//);
    expect(existsSync(path.join(dir, name.replace(/\W+/g, '-'), 'checkpoint'))).toBe(false);
  });

  it('--help says what each flag does and its default', async () => {
    const help = await runCli(['train', '--help']);
    expect(help.stdout).toMatch(/--async\s+asynchronous training/);
    expect(help.stdout).toMatch(/--max-staleness <k>\s+with --async: how many versions[\s\S]*\(default\s+1\)/);
    expect(help.stdout).toMatch(/--importance-cap <c>\s+with --async: truncate[\s\S]*\(default\s+2\)/);
  });

  it('saves the settings in config.json, reports the weights, and --resume keeps them', async () => {
    const run = path.join(dir, 'run');
    const first = await runCli(['train', '--env', 'babyai', '--steps', '1', '--out', run, ...TINY, '--async', '--importance-cap', '1.5']);
    expect(first.code, first.stderr).toBe(0);
    const config = () => JSON.parse(readFileSync(path.join(run, 'config.json'), 'utf8')) as { async?: unknown };
    expect(config().async).toEqual({ maxStaleness: 1, importanceCap: 1.5 });
    const conflict = await runCli(['train', '--resume', run, '--steps', '2', ...TINY, '--async', '--importance-cap', '3']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/CKPT_INCOMPATIBLE: .*async \{"maxStaleness":1,"importanceCap":3\} \(checkpoint: \{"maxStaleness":1,"importanceCap":1.5\}\)/);
    const resumed = await runCli(['train', '--resume', run, '--steps', '2', ...TINY]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(config().async).toEqual({ maxStaleness: 1, importanceCap: 1.5 });
    const lines = readFileSync(path.join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    expect(lines).toHaveLength(2);
    // Collected in lock-step here (no staleness given), so every row is corrected against the
    // sampler's constrained log-probs of the same weights: w = 1 up to float rounding.
    for (const line of lines) {
      expect(line['importanceWeight']).toBeCloseTo(1, 5);
      expect(line['importanceTruncated']).toBe(0);
    }
  }, 60_000);
});
