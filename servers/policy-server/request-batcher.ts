/**
 * Gathers the requests that arrive together into one call of `run` (a checkpoint's decode,
 * decode-batcher.ts; a Hugging Face model's generation, hf/hf-served-model.ts), as the agent actor
 * does (actors/agent.actor.ts): requests queued in the same event-loop turn, or while the previous
 * batch was running, go into the next batch. One batch runs at a time.
 *
 * Bounds: a batch holds at most `maxBatch` requests (the rest wait for the next); the queue holds
 * at most `maxQueue`; a request beyond it is refused at once with a 503 `server_busy` (lossy on
 * purpose: a client retries later, rather than the server holding sockets and memory for an
 * unbounded backlog).
 */
import { ApiError } from './api-error.ts';

/** Batches run so far and their sizes: how operators (and the tests) see that requests were decoded together. */
export interface BatchStats {
  readonly batches: number;
  readonly requests: number;
  readonly largestBatch: number;
  /** Sizes of the last 64 batches, oldest first. */
  readonly recentSizes: readonly number[];
}

interface Pending<J, R> {
  readonly job: J;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

const RECENT = 64;

export class RequestBatcher<J, R> {
  #queue: Pending<J, R>[] = [];
  #busy = false;
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;
  #stats = { batches: 0, requests: 0, largestBatch: 0, recentSizes: [] as number[] };

  constructor(
    readonly run: (batch: readonly J[]) => Promise<readonly R[]>,
    readonly options: { readonly maxBatch: number; readonly maxQueue: number; /** Named in the queue-full error: `the decode queue is full`. */ readonly what?: string },
  ) {
    for (const name of ['maxBatch', 'maxQueue'] as const) {
      if (!(Number.isInteger(options[name]) && options[name] >= 1)) throw new Error(`${name} must be a positive integer, got ${options[name]}`);
    }
  }

  get stats(): BatchStats {
    return { ...this.#stats, recentSizes: [...this.#stats.recentSizes] };
  }

  /** The result of `job`, run in the next batch. */
  submit(job: J): Promise<R> {
    if (this.#closed) return Promise.reject(new ApiError(503, 'server_closing', 'the server is shutting down'));
    if (this.#queue.length >= this.options.maxQueue) {
      return Promise.reject(new ApiError(503, 'server_busy', `the ${this.options.what ?? 'generation'} queue is full (maxQueue=${this.options.maxQueue}); retry shortly`));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
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
    this.#count(batch.length);
    let ran: Promise<readonly R[]>;
    try {
      ran = this.run(batch.map((item) => item.job));
    } catch (error) {
      ran = Promise.reject(error);
    }
    ran
      .then(
        (results) => batch.forEach((item, i) => {
          const result = results[i];
          if (result === undefined) item.reject(new Error('the batch returned too few results'));
          else item.resolve(result);
        }),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      )
      .finally(() => {
        this.#busy = false;
        this.#schedule();
      });
  }

  #count(size: number): void {
    const s = this.#stats;
    s.batches += 1;
    s.requests += size;
    s.largestBatch = Math.max(s.largestBatch, size);
    s.recentSizes.push(size);
    if (s.recentSizes.length > RECENT) s.recentSizes.shift();
  }
}
