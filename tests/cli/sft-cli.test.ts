import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

// The pipeline as a user runs it: collect → sft → train --init, through the real CLI.
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-sft-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TINY = ['--d-model', '16', '--layers', '1', '--heads', '2', '--ff', '32', '--history-turns', '0', '--learner-threads', '1'];
const demos = path.join(dir, 'oracle.jsonl');

describe('collect → sft → train --init (CLI)', () => {
  it('collect is deterministic for a seed and filters with --only-success', async () => {
    const a = await runCli(['collect', '--env', 'babyai', '--agent', 'oracle', '--episodes', '6', '--samples', '2', '--seed', '4', '--out', demos, '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ episodes: 12, written: 12, aborted: 0 });
    const random = path.join(dir, 'random.jsonl');
    const again = path.join(dir, 'random-again.jsonl');
    for (const out of [random, again]) {
      const r = await runCli(['collect', '--env', 'babyai', '--agent', 'random', '--episodes', '6', '--samples', '2', '--seed', '4', '--horizon', '5', '--out', out, '--json']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(random, 'utf8'));
    const lines = readFileSync(random, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { taskId: string; sample: number; outcome: string; turns: { availableActions?: string[]; action: string }[] });
    expect(lines.map((l) => l.sample)).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]); // task then sample order
    for (const l of lines) for (const t of l.turns) expect(t.availableActions).toContain(t.action);
    const successes = lines.filter((l) => l.outcome === 'success').length;
    expect(successes).toBeLessThan(12);
    const only = await runCli(['collect', '--env', 'babyai', '--agent', 'random', '--episodes', '6', '--samples', '2', '--seed', '4', '--horizon', '5', '--only-success', '--out', path.join(dir, 'only.jsonl'), '--json']);
    expect(JSON.parse(only.stdout)).toMatchObject({ written: successes, filtered: 12 - successes });
    const tooMany = await runCli(['collect', '--env', 'babyai', '--episodes', '99999', '--out', path.join(dir, 'x.jsonl')]);
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toMatch(/--episodes 99999 is past the 1440 tasks of the train split of babyai; give --episodes 1440 or less \(--samples/);
  });

  it('sft writes a checkpoint that train --init continues from', async () => {
    const sft = path.join(dir, 'sft');
    const r = await runCli(['sft', '--env', 'babyai', '--demos', demos, '--epochs', '2', '--eval-episodes', '4', '--out', sft, '--no-dashboard', '--json', ...TINY]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { status: string; epochs: number; demos: { read: number }; testSuccessRate: number; evaluation: { outcomes: { success: number; aborted: number } } };
    expect(summary).toMatchObject({ status: 'done', epochs: 2, demos: { read: 12 }, evaluation: { split: 'test', episodes: 4 } });
    // The final evaluation's successes over its scored episodes.
    const { success, aborted } = summary.evaluation.outcomes;
    expect(aborted).toBeLessThan(4);
    expect(summary.testSuccessRate).toBe(success / (4 - aborted));
    const rl = await runCli(['train', '--env', 'babyai', '--init', sft, '--steps', '1', '--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3',
      '--eval-episodes', '2', '--learner-threads', '1', '--out', path.join(dir, 'rl'), '--no-dashboard', '--json']);
    expect(rl.code, rl.stderr).toBe(0);
    expect(JSON.parse(rl.stdout)).toMatchObject({ status: 'done', steps: 1, config: { initFrom: path.join(sft, 'checkpoint'), historyTurns: 0 } });
    const bad = await runCli(['train', '--env', 'babyai', '--init', sft, '--steps', '1', '--d-model', '32', '--out', path.join(dir, 'bad'), '--no-dashboard']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/CKPT_INCOMPATIBLE/);
  });

  it('sft names a malformed demos line', async () => {
    const r = await runCli(['sft', '--env', 'babyai', '--demos', path.join(dir, 'nope.jsonl'), '--out', path.join(dir, 'n'), '--no-dashboard']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/cannot read demos file .*nope\.jsonl/);
  });
});
