/**
 * Issue 26, CLI habits: `actorgym` alone prints help and starts nothing, a mistyped command is
 * named with a suggestion, `npm start` runs the main job through an explicit command, and
 * tables never head two columns alike.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

/** The header row of the first aligned table in `text` (the line above its dashes). */
function headerCells(text: string): string[] {
  const lines = text.split('\n');
  const rule = lines.findIndex((line) => /^-+(\s{2}-+)+$/.test(line));
  expect(rule, text).toBeGreaterThan(0);
  return (lines[rule - 1] as string).trim().split(/\s{2,}/);
}

describe('actorgym CLI habits', () => {
  it('prints help and exits 0 with no command, and starts nothing', async () => {
    const { code, stdout, stderr } = await runCli([]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: actorgym \[options\] \[command\]/);
    for (const command of ['start', 'envs', 'rollout', 'train', 'eval', 'collect', 'sft', 'serve']) expect(stdout).toMatch(new RegExp(`\\n  ${command} `));
    // Nothing ran: no training banner, no progress, nothing on stderr.
    expect(stderr).toBe('');
  });

  it('names an unknown command with a suggestion and exits non-zero', async () => {
    const { code, stderr } = await runCli(['rolout']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/error: unknown command 'rolout'/);
    expect(stderr).toMatch(/\(Did you mean rollout\?\)/);
    expect(stderr).not.toMatch(/too many arguments/);
  });

  it('keeps npm start on the main job through an explicit command', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('node bin/actorgym.js start');
  });

  it('heads the rollout table with distinct names for the rate and the counts', async () => {
    const { code, stdout } = await runCli(['rollout', '--env', 'babyai', '--episodes', '3', '--horizon', '2']);
    expect(code).toBe(0);
    const header = headerCells(stdout);
    expect(new Set(header).size).toBe(header.length);
    expect(header).toEqual(['episodes', 'success rate', 'mean reward', 'mean turns', 'successes', 'failures', 'truncated', 'aborted', 'steps/s']);
  });

  it('heads the envs table with distinct names', async () => {
    const { code, stdout } = await runCli(['envs']);
    expect(code).toBe(0);
    const header = headerCells(stdout);
    expect(new Set(header).size).toBe(header.length);
    expect(header).toEqual(['env', 'train tasks', 'test tasks', 'default horizon', 'description']);
    // Envs named with an argument are listed too, or a user would never find them.
    expect(stdout).toMatch(/envs that take an argument[^\n]*\n\s+webarena:DIR\s+WebArena/);
  });
});
