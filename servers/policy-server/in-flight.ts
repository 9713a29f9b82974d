/**
 * HTTP requests received and not yet answered, so a closing server can let running completions
 * finish (within a bound) before it drops their sockets.
 */
import type { ServerResponse } from 'node:http';

export class InFlightRequests {
  #count = 0;
  #idle: (() => void) | undefined;

  get count(): number {
    return this.#count;
  }

  /** Counts a request until its response closes (answered, or its socket died). */
  track(res: ServerResponse): void {
    this.#count += 1;
    res.once('close', () => {
      this.#count -= 1;
      if (this.#count === 0) this.#idle?.();
    });
  }

  /** Resolves once no request runs, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.#count === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => (this.#idle = resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }
}
