/**
 * The retry loop every call to an OpenAI-compatible endpoint goes through, whatever its route
 * (chat-client.ts for `/v1/chat/completions`, completion-client.ts for token-exact
 * `/v1/completions`): a concurrency slot per attempt (a retry waiting out its backoff holds none),
 * exponential backoff with full jitter that honours Retry-After, the run-wide accounting, and one
 * `LlmError` naming the episode and turn when the retries run out. The SDK loads on the first call.
 *
 * A dead endpoint stops early: a call whose every attempt failed to reach the endpoint (refused,
 * DNS, reset before an answer) while no attempt of any call got an answer throws
 * `LLM_UNREACHABLE`, and so does every later call at once, without trying: the command stops there
 * with the cause (ECONNREFUSED …) instead of running every retry of every episode.
 *
 * `close()` ends everything at once: the calls in flight are aborted and end as `LLM_CANCELLED`
 * (not an endpoint failure: never retried, never recorded), calls waiting for a slot or a backoff
 * end the same way, and the caller's own connection pool (connection-pool.ts) is destroyed, so no
 * socket outlives it.
 */
import type OpenAI from 'openai';
import { backoffDelay, DEFAULT_BACKOFF_BASE_MS, DEFAULT_BACKOFF_MAX_MS, sleep as realSleep, type BackoffOptions } from './backoff.ts';
import type { AttemptFailure } from './chat-attempt.ts';
import type { CallKey } from './chat-types.ts';
import { ConcurrencyLimit } from './concurrency-limit.ts';
import { openConnectionPool, type ConnectionPool } from './connection-pool.ts';
import { endpointAuth, type EndpointAuth } from './endpoint-auth.ts';
import { errorBodyFetch } from './error-body.ts';
import { LlmError, redact } from './llm-error.ts';
import type { UsageMeter } from './usage-meter.ts';

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_RETRIES = 4;

/** What the loop needs of a client's options (`ChatClientOptions` is one). */
export interface EndpointCallerOptions {
  readonly baseURL: string;
  readonly apiKey?: string;
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  readonly retries?: number;
  readonly backoff?: { readonly baseMs?: number; readonly maxMs?: number };
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** One attempt's result, as chat-attempt.ts and completion-attempt.ts return it. */
export type Outcome<R> = { readonly ok: true; readonly reply: R } | { readonly ok: false; readonly failure: AttemptFailure };

/** What the accounting reads of a reply. */
export interface Accounted {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencyMs: number;
}

export interface EndpointCaller {
  /** Runs `attempt` until it succeeds or the retries run out (then throws an `LlmError`); `settled` sees the end either way. */
  call<R extends Accounted>(
    attempt: (openai: OpenAI, timeoutMs: number, closing: AbortSignal) => Promise<Outcome<R>>,
    key: CallKey,
    settled?: (result: { reply: R & { retries: number } } | { error: LlmError }) => void,
  ): Promise<R & { retries: number }>;
  readonly timeoutMs: number;
  /** Aborts every call in flight or waiting (they throw `LLM_CANCELLED`), refuses new ones, and closes the pool's sockets. */
  close(): Promise<void>;
}

export function createEndpointCaller(options: EndpointCallerOptions, meter: UsageMeter): EndpointCaller {
  const concurrency = checkedInt('concurrency', options.concurrency ?? DEFAULT_CONCURRENCY, 1);
  const retries = checkedInt('retries', options.retries ?? DEFAULT_RETRIES, 0);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be > 0, got ${timeoutMs}`);
  const backoff: BackoffOptions = {
    baseMs: options.backoff?.baseMs ?? DEFAULT_BACKOFF_BASE_MS,
    maxMs: options.backoff?.maxMs ?? DEFAULT_BACKOFF_MAX_MS,
    random: options.random ?? Math.random,
  };
  const auth = endpointAuth(options.baseURL, options.apiKey);
  const sdk = lazySdk(auth, timeoutMs);
  const loop = new RetryLoop({ retries, timeoutMs, backoff, sleep: options.sleep ?? realSleep, auth, meter, limit: new ConcurrencyLimit(concurrency), loadSdk: sdk.load });
  return {
    call: (attempt, key, settled) => loop.call(attempt, key, settled),
    timeoutMs,
    close: async () => {
      loop.close();
      await sdk.pool()?.destroy();
    },
  };
}

/**
 * The SDK (about 500 modules) loads on the first request, so that importing actorgym or building
 * a replay client does not pay for it; with it, the client's own connection pool.
 */
function lazySdk(auth: EndpointAuth, timeoutMs: number): { load: () => Promise<OpenAI>; pool: () => ConnectionPool | undefined } {
  const sdkOptions: ConstructorParameters<typeof OpenAI>[0] = {
    baseURL: auth.baseURL,
    apiKey: auth.apiKey ?? 'no-key',
    defaultHeaders: auth.headers,
    organization: null,
    project: null,
    maxRetries: 0,
    // Our deadline (the attempt's own timer) fires first; this only keeps the SDK's 10-minute default out of the way.
    timeout: timeoutMs + 1_000,
    fetch: errorBodyFetch(),
  };
  let sdk: Promise<OpenAI> | undefined;
  let pool: ConnectionPool | undefined;
  const load = () => (sdk ??= import('openai').then(({ default: Sdk }) => {
    pool = openConnectionPool();
    return new Sdk({ ...sdkOptions, fetchOptions: pool.fetchOptions as NonNullable<typeof sdkOptions>['fetchOptions'] });
  }));
  return { load, pool: () => pool };
}

interface RetryLoopOptions {
  readonly retries: number;
  readonly timeoutMs: number;
  readonly backoff: BackoffOptions;
  readonly sleep: (ms: number) => Promise<void>;
  readonly auth: EndpointAuth;
  readonly meter: UsageMeter;
  readonly limit: ConcurrencyLimit;
  readonly loadSdk: () => Promise<OpenAI>;
}

type Attempt<R> = (openai: OpenAI, timeoutMs: number, closing: AbortSignal) => Promise<Outcome<R>>;
type Settled<R> = (result: { reply: R & { retries: number } } | { error: LlmError }) => void;

/** The retry loop with its run-wide state: the close signal, and whether the endpoint ever answered. */
class RetryLoop {
  readonly #closing = new AbortController();
  /** Attempts that got an answer (any HTTP status): a call that saw this number unchanged through its retries reached nothing. */
  #answered = 0;
  #unreachable: string | undefined;

  constructor(readonly options: RetryLoopOptions) {}

  async call<R extends Accounted>(attempt: Attempt<R>, key: CallKey, settled?: Settled<R>): Promise<R & { retries: number }> {
    const { limit, meter, retries, loadSdk, timeoutMs } = this.options;
    const answeredBefore = this.#answered;
    for (let tries = 0; ; tries += 1) {
      if (this.#unreachable !== undefined) throw this.#fail(key, 'LLM_UNREACHABLE', this.#unreachable, tries, settled);
      const release = await limit.acquire();
      if (this.#closing.signal.aborted) {
        release();
        throw this.#cancelled(key, tries);
      }
      meter.attemptStarted();
      let outcome: Outcome<R>;
      try {
        outcome = await attempt(await loadSdk(), timeoutMs, this.#closing.signal);
      } finally {
        meter.attemptEnded();
        release();
      }
      // Whatever the aborted attempt made of it (a failure, or a stream cut short), it was a cancel.
      if (this.#closing.signal.aborted) throw this.#cancelled(key, tries);
      if (outcome.ok || outcome.failure.unreached !== true) this.#answered += 1;
      if (outcome.ok) {
        const reply = { ...outcome.reply, retries: tries };
        meter.succeeded({ ...reply, content: '' });
        settled?.({ reply });
        return reply;
      }
      const failure = outcome.failure;
      if (!failure.retryable || tries >= retries) throw this.#final(key, failure, tries, answeredBefore, settled);
      // The slot is free while we wait: a backing-off call does not block other episodes.
      await untilClosed(this.options.sleep(backoffDelay(tries, this.options.backoff, failure.retryAfterMs)), this.#closing.signal);
      if (this.#closing.signal.aborted) throw this.#cancelled(key, tries);
    }
  }

  close(): void {
    this.#closing.abort();
  }

  /** The error a call ends with when its retries run out or its failure is not retried. */
  #final<R>(key: CallKey, failure: AttemptFailure, tries: number, answeredBefore: number, settled: Settled<R> | undefined): LlmError {
    const { endpoint } = this.options.auth;
    const attempts = `after ${tries + 1} attempt${tries === 0 ? '' : 's'} at ${endpoint}`;
    if (failure.unreached === true && this.#answered === answeredBefore) {
      // Nothing answered any call while this one tried: the endpoint is down, not busy.
      this.#unreachable ??= `${failure.detail} (${attempts}, and no call got an answer meanwhile)`;
      return this.#fail(key, 'LLM_UNREACHABLE', this.#unreachable, tries, settled);
    }
    return this.#fail(key, failure.code, failure.retryable ? `${failure.detail} (${attempts})` : `${failure.detail} (${endpoint})`, tries, settled);
  }

  #fail<R>(key: CallKey, code: LlmError['code'], detail: string, tries: number, settled: Settled<R> | undefined): LlmError {
    const error = new LlmError(code, redact(detail, ...this.options.auth.secrets), key, tries);
    this.options.meter.failed(tries);
    settled?.({ error });
    return error;
  }

  #cancelled(key: CallKey, tries: number): LlmError {
    return new LlmError('LLM_CANCELLED', `the client was closed (${this.options.auth.endpoint})`, key, tries);
  }
}

/** `wait`, or less when `signal` aborts first. */
function untilClosed(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done);
    void wait.then(done, done);
  });
}

function checkedInt(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}
