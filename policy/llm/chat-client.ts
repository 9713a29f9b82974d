/**
 * The transport of the LLM agent: a chat client over any OpenAI-compatible endpoint (vLLM,
 * llama.cpp's server, Ollama, a hosted API) through the official `openai` SDK, with
 *
 * - a concurrency limit across all episodes (an attempt holds a slot; a retry waiting out its
 *   backoff holds none);
 * - a deadline per attempt, and retries with exponential backoff and full jitter that honour
 *   `Retry-After`, for transport failures: refused or reset connections, 5xx, 429, 408, an attempt
 *   past its deadline (LLM_TIMEOUT), a 200 that is not a chat completion (LLM_BAD_RESPONSE);
 *   other 4xx are not retried (LLM_REJECTED, with the server's words);
 * - accounting (`usage()`), and record/replay of every call (record-replay.ts).
 *
 * When the retries run out, `complete` throws an `LlmError` naming the episode and turn; the
 * episode then ends `aborted`, never `failure`. The API key goes only into the bearer header: it is
 * cut out of every error message and never recorded.
 *
 * @example
 * const client = createChatClient({ baseURL: 'http://127.0.0.1:8000/v1', concurrency: 8 });
 * const reply = await client.complete({ model: 'qwen', messages: [{ role: 'user', content: 'hi' }] }, { episodeId: 'e0', turn: 0 });
 * console.log(reply.content, client.usage().latencyP50Ms);
 * await client.close();
 */
import type OpenAI from 'openai';
import { backoffDelay, DEFAULT_BACKOFF_BASE_MS, DEFAULT_BACKOFF_MAX_MS, sleep as realSleep, type BackoffOptions } from './backoff.ts';
import type { attemptChat as AttemptChatFn } from './chat-attempt.ts';
import type { CallKey, ChatReply, ChatRequest, LlmUsage } from './chat-types.ts';
import { ConcurrencyLimit } from './concurrency-limit.ts';
import { LlmError, redact } from './llm-error.ts';
import { Recorder, recordEntry, Replayer, requestHash } from './record-replay.ts';
import { UsageMeter } from './usage-meter.ts';

export { requestHash };

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_RETRIES = 4;

export interface ChatClientOptions {
  /** The endpoint's base, e.g. http://127.0.0.1:8000/v1. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer …`; never printed, logged, recorded or put in an error message. Absent: no header. */
  readonly apiKey?: string;
  /** Requests in flight across all episodes, default 16 (a retry waiting out its backoff holds no slot). */
  readonly concurrency?: number;
  /** Deadline of one attempt, from sending to the last byte of the reply, ms; default 120 000. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, default 4. */
  readonly retries?: number;
  /** Full-jitter backoff: first ceiling `baseMs` (default 500), doubling, capped by `maxMs` (default 30 000), which also caps Retry-After. */
  readonly backoff?: { readonly baseMs?: number; readonly maxMs?: number };
  /** Ask for `stream: true` (with usage) and assemble the SSE deltas; default false. */
  readonly stream?: boolean;
  /** Append one JSON line per completed or finally-failed call to this file. */
  readonly record?: string;
  /** Answer every call from this recording; no endpoint is contacted. */
  readonly replay?: string;
  /** Uniform in [0, 1) for the jitter; default Math.random. */
  readonly random?: () => number;
  /** Waits out a backoff; default a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface ChatClient {
  /** One call; throws `LlmError` when the retries run out, the endpoint rejects it, or replay has no matching entry. */
  complete(request: ChatRequest, key: CallKey): Promise<ChatReply>;
  /** Run-wide totals so far. */
  usage(): LlmUsage;
  /** Flushes the record file (each line is already written as its call ends). */
  close(): Promise<void>;
}

export function createChatClient(options: ChatClientOptions): ChatClient {
  if (options.record !== undefined && options.replay !== undefined) throw new Error('a chat client either records or replays, not both');
  const meter = new UsageMeter();
  if (options.replay !== undefined) return replayingClient(new Replayer(options.replay), meter);
  return liveClient(options, meter, options.record !== undefined ? new Recorder(options.record) : undefined);
}

function replayingClient(replayer: Replayer, meter: UsageMeter): ChatClient {
  return {
    async complete(request, key) {
      const answer = replayer.answer(request, key);
      if (answer.ok) {
        meter.succeeded(answer.reply);
        return answer.reply;
      }
      meter.failed(answer.error.retries);
      throw answer.error;
    },
    usage: () => meter.usage(),
    close: async () => undefined,
  };
}

type AttemptChat = typeof AttemptChatFn;

function liveClient(options: ChatClientOptions, meter: UsageMeter, recorder: Recorder | undefined): ChatClient {
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
  // The SDK (about 500 modules) and the attempt code that needs its classes load on the first
  // request, so that importing actorgym or building a replay client does not pay for them.
  const sdkOptions: ConstructorParameters<typeof OpenAI>[0] = {
    baseURL: options.baseURL,
    // The SDK insists on a key; without one we send none at all (a null header is removed).
    apiKey: apiKey ?? 'no-key',
    ...(apiKey === undefined ? { defaultHeaders: { authorization: null } } : {}),
    organization: null,
    project: null,
    maxRetries: 0,
    // Our deadline (chat-attempt.ts) fires first; this only keeps the SDK's 10-minute default out of the way.
    timeout: timeoutMs + 1_000,
  };
  let sdk: Promise<{ openai: OpenAI; attemptChat: AttemptChat }> | undefined;
  const loadSdk = () =>
    (sdk ??= Promise.all([import('openai'), import('./chat-attempt.ts')]).then(([{ default: Sdk }, attempt]) => ({
      openai: new Sdk(sdkOptions),
      attemptChat: attempt.attemptChat,
    })));
  const limit = new ConcurrencyLimit(concurrency);
  const attemptOptions = { timeoutMs, stream: options.stream ?? false, now: () => Date.now() };
  const endpoint = publicEndpoint(options.baseURL);

  async function complete(request: ChatRequest, key: CallKey): Promise<ChatReply> {
    let attempt = 0;
    for (;;) {
      const release = await limit.acquire();
      meter.attemptStarted();
      let outcome;
      try {
        const { openai, attemptChat } = await loadSdk();
        outcome = await attemptChat(openai, request, attemptOptions);
      } finally {
        meter.attemptEnded();
        release();
      }
      if (outcome.ok) {
        const reply: ChatReply = { ...outcome.reply, retries: attempt };
        meter.succeeded(reply);
        recorder?.write(recordEntry(key, request, { reply }));
        return reply;
      }
      const failure = outcome.failure;
      if (!failure.retryable || attempt >= retries) {
        const detail = redact(failure.retryable ? `${failure.detail} (after ${attempt + 1} attempt${attempt === 0 ? '' : 's'} at ${endpoint})` : `${failure.detail} (${endpoint})`, apiKey);
        const error = new LlmError(failure.code, detail, key, attempt);
        meter.failed(attempt);
        recorder?.write(recordEntry(key, request, { error: { code: error.code, detail: error.detail, retries: attempt } }));
        throw error;
      }
      // The slot is free while we wait: a backing-off call does not block other episodes.
      await sleep(backoffDelay(attempt, backoff, failure.retryAfterMs));
      attempt += 1;
    }
  }

  return { complete, usage: () => meter.usage(), close: async () => undefined };
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
