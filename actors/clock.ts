/** Time, injected: xstate's delayed transitions use setTimeout/clearTimeout, events use `now`. */
export interface RunClock {
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/** The wall clock (`Date.now()`); tests pass a simulated one instead. */
export const systemClock: RunClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};
