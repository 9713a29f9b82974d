/**
 * Ctrl-C or SIGTERM in a command that runs episodes: the first signal stops the run gracefully
 * (no new episodes; a training checkpoints after its current learner step; the command writes
 * what finished and says how to continue), a second one of either kind quits at once, as Node
 * does by default. SIGTERM is what `kill`, systemd, Kubernetes and batch schedulers send before
 * a preemption, so it takes the same path as Ctrl-C (issue 40, finding 3).
 *
 * Exit codes: a run stopped this way exits 130 whichever signal stopped it (the work is saved, the
 * printed command continues it). A second signal ends the process by that signal (the shell
 * shows 130 or 143), without waiting for a checkpoint.
 */

/** The exit code of a command stopped gracefully by Ctrl-C (SIGINT) or SIGTERM. */
export const INTERRUPTED_EXIT_CODE = 130;

/** The signals that stop a run gracefully. */
export type StopSignal = 'SIGINT' | 'SIGTERM';
const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

export interface Interrupt {
  /** True once SIGINT or SIGTERM has arrived. */
  readonly interrupted: boolean;
  /** The signal that stopped the run. */
  readonly signal: StopSignal | undefined;
  /** Removes the handlers (the default, quit at once, is back). */
  dispose(): void;
}

/**
 * Calls `stop` at the first SIGINT or SIGTERM, after writing `message` (and how to quit at once)
 * on stderr. Both handlers go at the first signal: a second one meets Node's default and ends the
 * process.
 */
export function onInterrupt(message: string | (() => string), stop: (signal: StopSignal) => void): Interrupt {
  let signal: StopSignal | undefined;
  const handlers = new Map<StopSignal, () => void>();
  const dispose = () => {
    for (const [name, handler] of handlers) process.off(name, handler);
    handlers.clear();
  };
  for (const name of SIGNALS) {
    const handler = () => {
      signal = name;
      dispose();
      const again = name === 'SIGINT' ? 'Ctrl-C again to quit at once' : 'SIGTERM received; another SIGTERM or Ctrl-C quits at once';
      process.stderr.write(`\n${typeof message === 'string' ? message : message()} (${again})\n`);
      stop(name);
    };
    handlers.set(name, handler);
    process.on(name, handler);
  }
  return {
    get interrupted() {
      return signal !== undefined;
    },
    get signal() {
      return signal;
    },
    dispose,
  };
}

/** The reason a system records for the stop: `interrupted (SIGINT)` or `interrupted (SIGTERM)`. */
export const interruptReason = (signal: StopSignal): string => `interrupted (${signal})`;
