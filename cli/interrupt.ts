/**
 * Ctrl-C in a command that runs episodes: the first SIGINT stops the run gracefully (no new
 * episodes; the command writes what finished and says how to continue), a second one quits at
 * once, as Node does by default. An interrupted command exits 130 (128 + SIGINT), as shells do,
 * so a script can tell it from a finished run.
 */

/** The exit code of a command stopped by Ctrl-C. */
export const INTERRUPTED_EXIT_CODE = 130;

export interface Interrupt {
  /** True once SIGINT has arrived. */
  readonly interrupted: boolean;
  /** Removes the handler (the default, quit at once, is back). */
  dispose(): void;
}

/**
 * Calls `stop` at the first SIGINT, after writing `message` (and how to quit at once) on stderr.
 * The handler is `once`: a second Ctrl-C meets Node's default and ends the process.
 */
export function onInterrupt(message: string | (() => string), stop: () => void): Interrupt {
  let interrupted = false;
  const handler = () => {
    interrupted = true;
    process.stderr.write(`\n${typeof message === 'string' ? message : message()} (Ctrl-C again to quit at once)\n`);
    stop();
  };
  process.once('SIGINT', handler);
  return {
    get interrupted() {
      return interrupted;
    },
    dispose: () => void process.off('SIGINT', handler),
  };
}
