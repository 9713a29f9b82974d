/**
 * `--max-aborted SHARE` (rollout, eval, train): the largest share of task slots left without a
 * scored outcome (aborted after every retry, or never settled) that a command still calls a
 * success. Past it the command prints its summary as usual, then one line saying why, and exits 1:
 * a success rate over the episodes that happened to finish is not the agent's success rate.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { errorLine, percent } from './output.ts';

export const DEFAULT_MAX_ABORTED = 0.05;

function share(text: string): number {
  const value = Number(text);
  if (!(text.trim() !== '' && Number.isFinite(value) && value >= 0 && value <= 1)) throw new InvalidArgumentError(`--max-aborted must be a share in [0, 1], got "${text}"`);
  return value;
}

export function addMaxAbortedOption(command: Command, what = 'task slots'): Command {
  return command.option(
    '--max-aborted <share>',
    `exit 1 (after the summary) when more than this share of ${what} has no scored outcome: aborted by infrastructure through its retries, or never run`,
    share,
    DEFAULT_MAX_ABORTED,
  );
}

export interface UnscoredCount {
  /** Slots without a scored outcome. */
  readonly unscored: number;
  readonly total: number;
  /** What they were, for the message (e.g. "env_lost 12"). */
  readonly detail?: string;
}

/** The one-line reason when `count` is past `max`, else undefined. */
export function maxAbortedReason(count: UnscoredCount, max: number, what = 'task slots'): string | undefined {
  const shareOf = count.total === 0 ? 0 : count.unscored / count.total;
  if (shareOf <= max) return undefined;
  const detail = count.detail ? `; ${count.detail}` : '';
  return `${percent(shareOf)} of ${what} have no scored outcome (${count.unscored} of ${count.total}${detail}), over --max-aborted ${percent(max)}`;
}

/**
 * The `maxAborted` field of a command's --json summary: the limit, and whether the run went past
 * it (then the success rate printed is over scored episodes only).
 */
export function abortBudget(limit: number, exceeded: boolean): { readonly limit: number; readonly exceeded: boolean } {
  return { limit, exceeded };
}

/** Writes the reason line and sets exit code 1 when past `max`; true when it did. */
export function enforceMaxAborted(count: UnscoredCount, max: number, what?: string): boolean {
  const reason = maxAbortedReason(count, max, what);
  if (reason === undefined) return false;
  process.stderr.write(errorLine(reason));
  process.exitCode = 1;
  return true;
}

/** "env_lost 12, env_timeout 1" from a summary's `abortReasons`. */
export function reasonList(reasons: Readonly<Record<string, number>>): string {
  return Object.entries(reasons).map(([reason, count]) => `${reason} ${count}`).join(', ');
}
