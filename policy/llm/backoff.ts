/**
 * How long a failed LLM call waits before its next attempt: exponential backoff with full jitter
 * (uniform in [0, min(maxMs, baseMs·2^retry))), so that many episodes that failed together do not
 * retry together; a server's `Retry-After` (or OpenAI's `retry-after-ms`) replaces the jittered
 * delay, capped by `maxMs` so that a server cannot park an episode for an hour.
 *
 * @example
 * const wait = backoffDelay(retry, { baseMs: 500, maxMs: 30_000, random: Math.random }, retryAfterMs(error.headers, Date.now()));
 * await sleep(wait);
 */

export interface BackoffOptions {
  /** Ceiling of the first retry's jittered delay, ms (default 500). */
  readonly baseMs: number;
  /** Cap of every delay, a server's Retry-After included, ms (default 30 000). */
  readonly maxMs: number;
  /** Uniform in [0, 1); injected so tests are deterministic. */
  readonly random: () => number;
}

export const DEFAULT_BACKOFF_BASE_MS = 500;
export const DEFAULT_BACKOFF_MAX_MS = 30_000;

/**
 * The delay before retry number `retry` (0 for the first retry), in ms.
 * @param retryAfterMs what the server asked for, when it did (see `retryAfterMs`).
 */
export function backoffDelay(retry: number, options: BackoffOptions, retryAfterMs?: number): number {
  const { baseMs, maxMs } = options;
  if (retryAfterMs !== undefined) return Math.min(maxMs, Math.max(0, retryAfterMs));
  // 2^retry overflows to Infinity long after it passes any sane maxMs; min() keeps it finite.
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, retry));
  return Math.floor(options.random() * ceiling);
}

/**
 * A `Retry-After` value in ms: delay-seconds ("120", "1.5") or an HTTP date, measured from
 * `nowMs`. A date in the past is 0; anything else unreadable is undefined (ignored).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date always names its month; Date.parse alone would read "-5" as a year.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Anything with `get(name)`, as fetch's `Headers`. */
export interface HeaderSource {
  get(name: string): string | null;
}

/** What a response's headers ask: OpenAI's `retry-after-ms` when present and valid, else `Retry-After`. */
export function retryAfterMs(headers: HeaderSource | undefined, nowMs: number): number | undefined {
  if (headers === undefined) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms.trim()));
  return parseRetryAfter(headers.get('retry-after'), nowMs);
}

/** The real sleep; tests inject one that records the waits and returns at once. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
