// Issue 5 (acceptance): `actorgym train --schedule scaling:[2,4]@3 --steps 8 …` logs horizon 2 for
// steps 1–3 and 4 from step 4 on, and the same after a resume at step 3. Through the real entry
// point with a tiny model; the episodes' own maxTurns in trajectories/ must agree with the log.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TIMING_FIELDS } from '../../actors/training/metrics.ts';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-train-horizon-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--env', 'babyai', '--tasks-per-step', '2', '--group-size', '2', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1',
  '--context', '128', '--backend', 'wasm', '--eval-episodes', '0', '--checkpoint-every', '1', '--seed', '3', '--no-dashboard', '--json'];

function lines(file: string): Record<string, number | string>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, number | string>);
}

function metrics(run: string): Record<string, number | string>[] {
  return lines(path.join(run, 'metrics.jsonl')).map((m) => {
    for (const field of TIMING_FIELDS) delete m[field];
    return m;
  });
}

const maxTurnsOf = (run: string, step: number): number[] =>
  lines(path.join(run, 'trajectories', `step-${String(step).padStart(6, '0')}.jsonl`)).map((e) => e.maxTurns as number);

describe('actorgym train --schedule scaling:[2,4]@3 (issue 5)', () => {
  it('uses horizon 2 for steps 1–3 and 4 from step 4, in one run and across a resume at step 3', { timeout: 120_000 }, async () => {
    const whole = path.join(dir, 'whole');
    const one = await runCli(['train', '--schedule', 'scaling:[2,4]@3', '--steps', '8', '--out', whole, ...TINY]);
    expect(one.code, one.stderr).toBe(0);
    const expected = [2, 2, 2, 4, 4, 4, 4, 4];
    const a = metrics(whole);
    expect(a.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(a.map((m) => m.horizon)).toEqual(expected);
    expect(expected.map((_, i) => new Set(maxTurnsOf(whole, i + 1)))).toEqual(expected.map((h) => new Set([h])));
    // The curriculum's decision closes each line: step 3 raises the horizon of step 4.
    expect(a[2]).toMatchObject({ horizonNext: 4, horizonDecision: 'raise', horizonReason: 'scaling:[2,4]@3: stage for step 4' });
    expect(a.filter((m) => m.horizonDecision === 'hold')).toHaveLength(7);

    const parted = path.join(dir, 'parted');
    const first = await runCli(['train', '--schedule', 'scaling:[2,4]@3', '--steps', '3', '--out', parted, ...TINY]);
    expect(first.code, first.stderr).toBe(0);
    expect(metrics(parted).map((m) => m.horizon)).toEqual([2, 2, 2]);
    // The same flags again: a resume accepts them when they equal the checkpoint's configuration.
    const resumed = await runCli(['train', '--resume', parted, '--steps', '8', ...TINY]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done', steps: 8, fromStep: 3 });
    expect(resumed.stderr).toMatch(/resumed at step 3/);
    const b = metrics(parted);
    expect(b.map((m) => m.horizon)).toEqual(expected);
    expect(expected.map((_, i) => new Set(maxTurnsOf(parted, i + 1)))).toEqual(expected.map((h) => new Set([h])));
    expect(b).toEqual(a);
  });
});
