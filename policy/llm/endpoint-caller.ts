/**
 * The retry loop every call to an OpenAI-compatible endpoint goes through, whatever its route
 * (chat-client.ts for `/v1/chat/completions`, completion-client.ts for token-exact
 * `/v1/completions`): a concurrency slot per attempt (a retry waiting out its backoff holds none),
 * exponential backoff with full jitter that honours Retry-After, the run-wide accounting, and one
 * `LlmError` naming the episode and turn when the retries run out. The SDK loads on the first call.
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
  const sleep = options.sleep ?? realSleep;
  const apiKey = options.apiKey !== undefined && options.apiKey !== '' ? options.apiKey : undefined;
  const sdkOptions: ConstructorParameters<typeof OpenAI>[0] = {
    baseURL: options.baseURL,
    // The SDK insists on a key; without one we send none at all (a null header is removed).
    apiKey: apiKey ?? 'no-key',
    ...(apiKey === undefined ? { defaultHeaders: { authorization: null } } : {}),
    organization: null,
    project: null,
    maxRetries: 0,
    // Our deadline (the attempt's own timer) fires first; this only keeps the SDK's 10-minute default out of the way.
    timeout: timeoutMs + 1_000,
  };
  // The SDK (about 500 modules) loads on the first request, so that importing actorgym or building
  // a replay client does not pay for it.
  let sdk: Promise<OpenAI> | undefined;
  let pool: ConnectionPool | undefined;
  const loadSdk = () => (sdk ??= import('openai').then(({ default: Sdk }) => {
    pool = openConnectionPool();
    return new Sdk({ ...sdkOptions, fetchOptions: pool.fetchOptions as NonNullable<typeof sdkOptions>['fetchOptions'] });
  }));
  const limit = new ConcurrencyLimit(concurrency);
  const endpoint = publicEndpoint(options.baseURL);
  const closing = new AbortController();
  const cancelled = (key: CallKey, tries: number) => new LlmError('LLM_CANCELLED', `the client was closed (${endpoint})`, key, tries);

  async function call<R extends Accounted>(
    attempt: (openai: OpenAI, timeoutMs: number, closing: AbortSignal) => Promise<Outcome<R>>,
    key: CallKey,
    settled?: (result: { reply: R & { retries: number } } | { error: LlmError }) => void,
  ): Promise<R & { retries: number }> {
    for (let tries = 0; ; tries += 1) {
      const release = await limit.acquire();
      if (closing.signal.aborted) {
        release();
        throw cancelled(key, tries);
      }
      meter.attemptStarted();
      let outcome: Outcome<R>;
      try {
        outcome = await attempt(await loadSdk(), timeoutMs, closing.signal);
      } finally {
        meter.attemptEnded();
        release();
      }
      // Whatever the aborted attempt made of it (a failure, or a stream cut short), it was a cancel.
      if (closing.signal.aborted) throw cancelled(key, tries);
      if (outcome.ok) {
        const reply = { ...outcome.reply, retries: tries };
        meter.succeeded({ ...reply, content: '' });
        settled?.({ reply });
        return reply;
      }
      const failure = outcome.failure;
      if (!failure.retryable || tries >= retries) {
        const detail = redact(failure.retryable ? `${failure.detail} (after ${tries + 1} attempt${tries === 0 ? '' : 's'} at ${endpoint})` : `${failure.detail} (${endpoint})`, apiKey);
        const error = new LlmError(failure.code, detail, key, tries);
        meter.failed(tries);
        settled?.({ error });
        throw error;
      }
      // The slot is free while we wait: a backing-off call does not block other episodes.
      await untilClosed(sleep(backoffDelay(tries, backoff, failure.retryAfterMs)), closing.signal);
      if (closing.signal.aborted) throw cancelled(key, tries);
    }
  }
  async function close(): Promise<void> {
    closing.abort();
    await pool?.destroy();
  }
  return { call, timeoutMs, close };
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

/** The base URL without user info, for error messages. */
function publicEndpoint(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return baseURL;
  }
}
