/** Issue 26: the `--resume` command an interrupted training prints is the one the user typed, pointed at its run. */
import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../cli/resume-command.ts';

describe('resumeCommand', () => {
  it('keeps every flag and replaces --out with --resume DIR', () => {
    expect(resumeCommand(['train', '--env', 'babyai', '--steps', '40', '--out', 'runs/a', '--no-dashboard'], 'runs/a', undefined))
      .toBe('npx actorgym train --env babyai --steps 40 --no-dashboard --resume runs/a');
  });

  it('replaces an earlier --resume or --init, in either spelling', () => {
    expect(resumeCommand(['train', '--resume=runs/a/checkpoint', '--steps', '80'], 'runs/a', undefined)).toBe('npx actorgym train --steps 80 --resume runs/a');
    expect(resumeCommand(['train', '--init', 'runs/sft', '--steps', '5', '--out=runs/b'], 'runs/b', undefined)).toBe('npx actorgym train --steps 5 --resume runs/b');
  });

  it('quotes what a shell would split', () => {
    expect(resumeCommand(['train', '--schedule', 'scaling:[6,13,20]@100', '--hide-action', 'check available actions'], 'runs/my run', undefined))
      .toBe("npx actorgym train --schedule 'scaling:[6,13,20]@100' --hide-action 'check available actions' --resume 'runs/my run'");
  });

  it('writes npm start -- … under npm start', () => {
    expect(resumeCommand(['start', '--no-dashboard'], 'runs/x', 'start')).toBe('npm start -- --no-dashboard --resume runs/x');
    expect(resumeCommand(['start'], 'runs/x', undefined)).toBe('npx actorgym start --resume runs/x');
  });
});
