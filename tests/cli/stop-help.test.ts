/**
 * Issue 40, finding 3: SIGTERM stops a run as Ctrl-C does (cli/interrupt.ts) in seven commands;
 * each one's --help says so, with the exit code, from one shared text (cli/stop-help.ts).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const COMMANDS = ['train', 'learner', 'start', 'sft', 'rollout', 'eval', 'collect'] as const;

describe('--help of the commands that stop on SIGINT or SIGTERM', () => {
  it('mentions Ctrl-C, SIGTERM and exit code 130 in every one', async () => {
    const helps = await Promise.all(COMMANDS.map((command) => runCli([command, '--help'])));
    for (const [i, help] of helps.entries()) {
      const command = COMMANDS[i];
      expect(help.code, `${command}: ${help.stderr}`).toBe(0);
      // Help wraps lines: match across them.
      const text = help.stdout.replace(/\s+/g, ' ');
      expect(text, command).toContain('Ctrl-C or SIGTERM');
      expect(text, command).toMatch(/exits 130 whichever signal stopped it/);
    }
    // What is kept differs by command: a checkpoint for training, nothing for collect.
    const text = (command: (typeof COMMANDS)[number]) => (helps[COMMANDS.indexOf(command)]?.stdout ?? '').replace(/\s+/g, ' ');
    for (const command of ['train', 'learner', 'start'] as const) expect(text(command), command).toMatch(/after the current learner step, writes a checkpoint/);
    expect(text('sft')).toMatch(/last whole epoch's checkpoint is kept/);
    expect(text('eval')).toMatch(/re-running the same command continues it/);
    expect(text('collect')).toMatch(/nothing is written/);
  }, 60_000);
});
