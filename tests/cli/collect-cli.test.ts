import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDemos } from '../../demos/read-demos.ts';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-collect-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('actorgym collect', () => {
  it('writes the same demos as our JSON lines and as AgentTraj, and prints the counts', async () => {
    const ours = path.join(dir, 'ours.jsonl');
    const theirs = path.join(dir, 'theirs.json');
    const args = ['collect', '--env', 'babyai', '--agent', 'random', '--episodes', '4', '--samples', '2', '--horizon', '6', '--seed', '9', '--json'];
    const a = await runCli([...args, '--out', ours]);
    expect(a.code, a.stderr).toBe(0);
    // Everything but the wall time, which differs from run to run.
    const { seconds: _seconds, ...counts } = JSON.parse(a.stdout) as { episodes: number; successes: number; written: number; aborted: number; format: string; seconds: number };
    expect(counts).toMatchObject({ episodes: 8, written: 8, aborted: 0, format: 'actorgym' });
    const b = await runCli([...args, '--format', 'agenttraj', '--out', theirs]);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ ...counts, format: 'agenttraj', out: theirs });
    const items = JSON.parse(readFileSync(theirs, 'utf8')) as { item_id: string }[];
    expect(items).toHaveLength(8);
    const demos = await readDemos(ours);
    expect(demos.filter((d) => d.outcome === 'success')).toHaveLength(counts.successes);
    expect(await readDemos(theirs)).toEqual(demos);
  });

  it('prints a summary line without --json', async () => {
    const out = path.join(dir, 'oracle.jsonl');
    const r = await runCli(['collect', '--env', 'textcraft', '--episodes', '3', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^3 demos written to ${out} \\(actorgym\\): 3 episodes, 3 successes \\(100\\.0%\\), 0 aborted and not written`));
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('refuses bad input with a clear error, writing nothing', async () => {
    const out = path.join(dir, 'never.jsonl');
    const noDir = await runCli(['collect', '--env', 'babyai', '--episodes', '2', '--out', path.join(dir, 'missing', 'x.jsonl')]);
    expect(noDir.code).not.toBe(0);
    expect(noDir.stderr).toMatch(/--out .*x\.jsonl: directory .*missing does not exist/);
    const unknown = await runCli(['collect', '--env', 'nosuchenv', '--out', out]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown env "nosuchenv"/);
    const format = await runCli(['collect', '--env', 'babyai', '--format', 'sharegpt', '--out', out]);
    expect(format.code).not.toBe(0);
    expect(format.stderr).toMatch(/Allowed choices are actorgym, agenttraj/);
    const noOut = await runCli(['collect', '--env', 'babyai']);
    expect(noOut.code).not.toBe(0);
    expect(noOut.stderr).toMatch(/--out <file>/);
    expect(existsSync(out)).toBe(false);
  });
});
