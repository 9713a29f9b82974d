/**
 * Issue 26: every command that takes `--agent` lists every agent spec in its `--help`, from the
 * one list in cli/agent-spec.ts, so a new spec cannot be missing from a command's help.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_SPECS } from '../../cli/agent-spec.ts';
import { runCli } from './run-cli.ts';

describe('--agent help', () => {
  it('lists every agent spec in every command that takes --agent', async () => {
    const top = await runCli(['--help']);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1] as string).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(8);
    const helps = await Promise.all(commands.map((command) => runCli([command, '--help'])));
    const withAgent: string[] = [];
    for (const [i, command] of commands.entries()) {
      const { code, stdout } = helps[i] as { code: number; stdout: string };
      expect(code, command).toBe(0);
      if (!/--agent <agent>/.test(stdout)) continue;
      withAgent.push(command);
      for (const { form, description } of AGENT_SPECS) {
        expect(stdout, `${command} --help lacks ${form}`).toContain(form);
        expect(stdout.replace(/\s+/g, ' '), `${command} --help lacks the description of ${form}`).toContain(description);
      }
    }
    expect(withAgent.sort()).toEqual(['collect', 'eval', 'rollout']);
  });

  it('refuses an unknown agent before anything loads, naming the known ones', async () => {
    const { code, stderr } = await runCli(['eval', '--env', 'babyai', '--agent', 'checkpont:runs/x']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/unknown agent "checkpont:runs\/x"; known agents: random, oracle, checkpoint:DIR, openai:MODEL/);
  });
});
