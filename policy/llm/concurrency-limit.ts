/**
 * A counting semaphore with a FIFO queue: at most `limit` holders at once, and waiters are served
 * in arrival order, so no episode starves behind later ones.
 *
 * Bound on the queue: each caller waits for at most one slot at a time, so the queue never holds
 * more entries than there are concurrent callers (the episodes in flight). Nothing is dropped; a
 * caller waits until a slot frees. A released slot passes straight to the oldest waiter, so a
 * newcomer cannot overtake the queue.
 *
 * @example
 * const limit = new ConcurrencyLimit(16);
 * const release = await limit.acquire();
 * try { await send(); } finally { release(); }
 */
export type Release = () => void;

export class ConcurrencyLimit {
  readonly #limit: number;
  #holders = 0;
  readonly #waiters: Array<((release: Release) => void) | undefined> = [];
  #head = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a concurrency limit must be an integer ≥ 1, got ${limit}`);
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Slots held now. */
  get inFlight(): number {
    return this.#holders;
  }

  /** Callers queued for a slot. */
  get waiting(): number {
    return this.#waiters.length - this.#head;
  }

  /** Resolves with a release function once a slot is held; calling release twice frees one slot. */
  acquire(): Promise<Release> {
    if (this.#holders < this.#limit) {
      this.#holders += 1;
      return Promise.resolve(this.#release());
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #release(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters[this.#head];
      if (next === undefined) {
        this.#holders -= 1;
        return;
      }
      // The slot changes hands without ever being free.
      this.#waiters[this.#head] = undefined;
      this.#head += 1;
      if (this.#head > 64 && this.#head * 2 > this.#waiters.length) {
        this.#waiters.splice(0, this.#head);
        this.#head = 0;
      }
      next(this.#release());
    };
  }
}
