/** Issue 35, small habits: every error the CLI prints starts with one prefix, `actorgym: error: `. */
import { describe, expect, it } from 'vitest';
import { errorLine } from '../../cli/output.ts';
import { runCli } from './run-cli.ts';

describe('the CLI error prefix (issue 35)', () => {
  it.each([
    ['an unknown command', ['rolout'], /^actorgym: error: unknown command 'rolout'/],
    ['an unknown option', ['rollout', '--env', 'babyai', '--bogus'], /^actorgym: error: unknown option '--bogus'/],
    ['a bad option value', ['rollout', '--env', 'babyai', '--episodes', 'x'], /^actorgym: error: option '--episodes <n>' argument 'x' is invalid/],
    ['a missing required option', ['train', '--env', 'babyai'], /^actorgym: error: required option '--steps <n>' not specified/],
    ['a failure inside a command', ['rollout', '--env', 'nope'], /^actorgym: error: .*nope/],
  ])('prefixes %s', async (_what, args, expected) => {
    const { code, stderr } = await runCli(args);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(expected);
    expect(stderr).not.toMatch(/^error:/m);
  });

  it('writes a message that already says "error: " once, on its own line', () => {
    expect(errorLine('error: x\n')).toBe('actorgym: error: x\n');
    expect(errorLine('y')).toBe('actorgym: error: y\n');
  });
});
