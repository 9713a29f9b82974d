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

  it('names the variable of a token or API key, never its value (issue 40, finding 6)', () => {
    const args = ['learner', '--worker-token', 'S3cret-w', '--token=S3cret-t', '--api-key', 'sk-S3cret', '--tokenizer', 'hf:tok', '--out', 'runs/d'];
    const command = resumeCommand(args, 'runs/d', undefined);
    expect(command).toBe('npx actorgym learner --worker-token "$ACTORGYM_TOKEN" --token "$ACTORGYM_TOKEN" --api-key "$OPENAI_API_KEY" --tokenizer hf:tok --resume runs/d');
    expect(command).not.toContain('S3cret');
  });

  it('writes npm start -- … under npm start', () => {
    expect(resumeCommand(['start', '--no-dashboard'], 'runs/x', 'start')).toBe('npm start -- --no-dashboard --resume runs/x');
    expect(resumeCommand(['start'], 'runs/x', undefined)).toBe('npx actorgym start --resume runs/x');
  });
});
