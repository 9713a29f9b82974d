/**
 * `--out DIR` on a directory that holds a run (issue 40, finding 3): `train`, `sft` and `start`
 * refuse before anything runs, naming the step found and the command that continues the run,
 * instead of starting over and writing a new checkpoint over the old one. `--resume DIR` (with
 * or without `--out DIR`) continues it; another `--out` starts elsewhere.
 */
import { findExistingRun, resumesRun, type ExistingRun } from '../actors/training/existing-run.ts';
import { resumeCommand, shellQuote } from './resume-command.ts';

export type RunCommand = 'train' | 'sft' | 'start';

export interface ExistingRunCheck {
  readonly command: RunCommand;
  readonly out: string | undefined;
  readonly resume: string | undefined;
  /** The command's arguments after the program, to print the resume command (default process.argv). */
  readonly args?: readonly string[];
}

/** Throws when `out` holds a run with a checkpoint that this command would not resume. */
export async function refuseExistingRun({ command, out, resume, args = process.argv.slice(2) }: ExistingRunCheck): Promise<void> {
  if (out === undefined) return;
  const found = await findExistingRun(out);
  if (found === undefined) return;
  if (resume !== undefined && (await resumesRun(resume, found.dir))) return;
  throw new Error(existingRunMessage(command, out, found, args));
}

/** The refusal: what is in the directory, and what to do instead. */
export function existingRunMessage(command: RunCommand, out: string, found: ExistingRun, args: readonly string[]): string {
  const what = found.kind === 'sft' ? `an SFT run at epoch ${found.step}` : `a training run at step ${found.step}`;
  const head = `--out ${out} already holds ${what} (checkpoint ${found.checkpoint}); a new run would overwrite it.`;
  const elsewhere = 'or give another --out (delete the directory to start over)';
  const sameKind = (command === 'sft') === (found.kind === 'sft');
  if (sameKind) return `${head} Continue it with:\n  ${resumeCommand(args, out)}\n${elsewhere}`;
  if (found.kind === 'sft') return `${head} Start RL from its weights with --init ${shellQuote(out)} and another --out, ${elsewhere}`;
  return `${head} Give another --out for the SFT run (delete the directory to start over)`;
}
