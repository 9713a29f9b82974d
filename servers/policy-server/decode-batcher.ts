/**
 * Gathers the decode requests that arrive together into one `act` call, as the agent actor does
 * (actors/agent.actor.ts): requests queued in the same event-loop turn, or while the previous
 * batch was decoding, are decoded in one batched pass. One batch is in flight at a time.
 *
 * Bounds: a batch holds at most `maxBatch` requests (default 256; the rest wait for the next);
 * the queue holds at most `maxQueue` (default 1024); a request beyond it is refused at once with
 * a 503 `server_busy` (lossy on purpose: a client retries later, rather than the server holding
 * sockets and memory for an unbounded backlog).
 */
import type { Decision } from '../../policy/policy.ts';
import type { TransformerActRequest } from '../../policy/transformer-policy.ts';
import { ApiError } from './api-error.ts';

export const DEFAULT_MAX_BATCH = 256;
export const DEFAULT_MAX_QUEUE = 1024;

interface Pending {
  readonly request: TransformerActRequest;
  readonly resolve: (decision: Decision) => void;
  readonly reject: (error: unknown) => void;
}

export class DecodeBatcher {
  #queue: Pending[] = [];
  #busy = false;
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;

  constructor(
    readonly act: (batch: readonly TransformerActRequest[]) => Promise<readonly Decision[]>,
    readonly options: { readonly maxBatch: number; readonly maxQueue: number },
  ) {
    for (const name of ['maxBatch', 'maxQueue'] as const) {
      if (!(Number.isInteger(options[name]) && options[name] >= 1)) throw new Error(`${name} must be a positive integer, got ${options[name]}`);
    }
  }

  /** The decision for `request`, decoded in the next batch. */
  submit(request: TransformerActRequest): Promise<Decision> {
    if (this.#closed) return Promise.reject(new ApiError(503, 'server_closing', 'the server is shutting down'));
    if (this.#queue.length >= this.options.maxQueue) {
      return Promise.reject(new ApiError(503, 'server_busy', `the decode queue is full (maxQueue=${this.options.maxQueue}); retry shortly`));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      this.#schedule();
    });
  }

  /** Refuses queued and future requests; the batch in flight finishes. */
  close(): void {
    this.#closed = true;
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const queued = this.#queue;
    this.#queue = [];
    for (const item of queued) item.reject(new ApiError(503, 'server_closing', 'the server is shutting down'));
  }

  // setImmediate, not a microtask: requests whose bodies land in the same I/O phase join one batch.
  #schedule(): void {
    if (this.#scheduled === undefined && this.#queue.length > 0 && !this.#busy && !this.#closed) this.#scheduled = setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = undefined;
    if (this.#busy || this.#queue.length === 0 || this.#closed) return;
    const batch = this.#queue.slice(0, this.options.maxBatch);
    this.#queue = this.#queue.slice(batch.length);
    this.#busy = true;
    let decided: Promise<readonly Decision[]>;
    try {
      decided = this.act(batch.map((item) => item.request));
    } catch (error) {
      decided = Promise.reject(error);
    }
    decided
      .then(
        (decisions) => batch.forEach((item, i) => {
          const decision = decisions[i];
          if (decision === undefined) item.reject(new Error('the policy returned too few decisions'));
          else item.resolve(decision);
        }),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      )
      .finally(() => {
        this.#busy = false;
        this.#schedule();
      });
  }
}
