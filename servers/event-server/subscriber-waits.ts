/**
 * Waits for a number of subscribers, so a run can hold its start until its observers are there
 * (`--wait-subscribers N`). The result is a value: `ok`, or why the wait ended without them.
 */
export interface WaitForSubscribersOptions {
  /** Give up after this many ms (`TIMEOUT`). Default: no bound; the CLI always sets one. */
  readonly timeoutMs?: number;
  /** Called with the number of subscribers whenever it changes during the wait. */
  readonly onChange?: (subscribers: number) => void;
}

export type WaitForSubscribersResult =
  | { readonly ok: true; readonly subscribers: number }
  /** `TIMEOUT`: `timeoutMs` passed; `CLOSED`: the server closed first. */
  | { readonly ok: false; readonly code: 'TIMEOUT' | 'CLOSED'; readonly subscribers: number };

interface Wait {
  readonly count: number;
  readonly onChange: ((subscribers: number) => void) | undefined;
  readonly settle: (result: WaitForSubscribersResult) => void;
}

export class SubscriberWaits {
  private readonly waits = new Set<Wait>();

  constructor(private readonly subscribers: () => number) {}

  wait(count: number, options: WaitForSubscribersOptions = {}): Promise<WaitForSubscribersResult> {
    const now = this.subscribers();
    if (now >= count) return Promise.resolve({ ok: true, subscribers: now });
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wait: Wait = {
        count,
        onChange: options.onChange,
        settle: (result) => {
          clearTimeout(timer);
          this.waits.delete(wait);
          resolve(result);
        },
      };
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => wait.settle({ ok: false, code: 'TIMEOUT', subscribers: this.subscribers() }), options.timeoutMs);
      }
      this.waits.add(wait);
    });
  }

  /** The number of subscribers changed. */
  changed(): void {
    const now = this.subscribers();
    for (const wait of [...this.waits]) {
      wait.onChange?.(now);
      if (now >= wait.count) wait.settle({ ok: true, subscribers: now });
    }
  }

  /** The server is closing: every wait ends with `CLOSED`. */
  close(): void {
    for (const wait of [...this.waits]) wait.settle({ ok: false, code: 'CLOSED', subscribers: this.subscribers() });
  }
}
