/**
 * The `--help` paragraph on stopping a run, shared by every command that stops on SIGINT or
 * SIGTERM through ./interrupt.ts (train, learner, start, sft, rollout, eval, collect), so the
 * seven say the same thing about the signals and the exit code and differ only in what is kept.
 */
import { INTERRUPTED_EXIT_CODE } from './interrupt.ts';

/** What a command keeps when a signal stops it. */
const KEPT = {
  training:
    'stops the run after the current learner step, writes a checkpoint and prints the command that ' +
    'continues it (--resume); during the final test evaluation it stops the evaluation (no new ' +
    'episodes, the summary is of the finished ones)',
  sft: "stops the run at the next update; the last whole epoch's checkpoint is kept and the summary says how to continue (--resume)",
  rollout: 'stops the run: no new episodes start, running ones end as aborted, and the summary of what finished is printed',
  eval: 'stops the evaluation: no new episodes start, running ones end without a result, what finished is in episodes.jsonl and results.json, and re-running the same command continues it',
  collect: 'stops the run: no new episodes start, and nothing is written (--out is written whole or not at all)',
} as const;

export type StopKind = keyof typeof KEPT;

/** The help paragraph (wrapped at 100 columns) for a command of `kind`. */
export function stopHelpText(kind: StopKind): string {
  const text =
    `Ctrl-C or SIGTERM (kill, systemd, a scheduler's preemption) ${KEPT[kind]}. The command then exits ` +
    `${INTERRUPTED_EXIT_CODE} whichever signal stopped it; a second signal quits at once${kind === 'training' || kind === 'sft' ? ' (no new checkpoint)' : ''}.`;
  return wrap(text, 100);
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}
