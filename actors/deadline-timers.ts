/**
 * Coarse timers for call deadlines. Every env and agent call arms a deadline (machines/
 * episode.machine.ts, `after`) that is almost always cancelled a few milliseconds later, two per
 * env step. A Node timer costs about 1 µs to arm and cancel (it allocates a Timeout object); an
 * entry in a Map costs well under 0.1 µs. So deadlines live in one Map swept by a single interval
 * every `resolutionMs`, which fires them at most that late: fine for deadlines of seconds.
 */
export class DeadlineTimers {
  readonly #pending = new Map<number, { readonly fn: () => void; readonly due: number }>();
  #next = 0;
  #interval: NodeJS.Timeout | undefined;

  constructor(readonly resolutionMs = 25) {}

  setTimeout(fn: () => void, ms: number): number {
    const id = ++this.#next;
    this.#pending.set(id, { fn, due: performance.now() + ms });
    this.#interval ??= setInterval(() => this.#sweep(), this.resolutionMs);
    return id;
  }

  clearTimeout(id: unknown): void {
    this.#pending.delete(id as number);
  }

  /** Timers armed and not yet fired or cancelled. */
  get size(): number {
    return this.#pending.size;
  }

  #sweep(): void {
    const now = performance.now();
    for (const [id, timer] of this.#pending) {
      if (timer.due > now) continue;
      this.#pending.delete(id);
      timer.fn();
    }
    // Nothing pending: stop, so an idle process can exit.
    if (this.#pending.size === 0 && this.#interval !== undefined) {
      clearInterval(this.#interval);
      this.#interval = undefined;
    }
  }
}
