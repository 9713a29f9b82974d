import { DeadlineTimers } from './deadline-timers.ts';

/** Time, injected: xstate's delayed transitions use setTimeout/clearTimeout, events use `now`. */
export interface RunClock {
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

const deadlines = new DeadlineTimers();

/** Wall time; timers are coarse (deadline-timers.ts: they fire up to 25 ms late). */
export const systemClock: RunClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => deadlines.setTimeout(fn as () => void, ms),
  clearTimeout: (id) => deadlines.clearTimeout(id),
};
