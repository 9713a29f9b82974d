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
import type { CallKey, ChatReply, ChatRequest, LlmUsage } from './chat-types.ts';
import { createEndpointCaller, DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from './endpoint-caller.ts';
import { Recorder, recordEntry, Replayer, requestHash } from './record-replay.ts';
import { UsageMeter } from './usage-meter.ts';

export { requestHash };

export { DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS };

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
  /** Ends every call in flight or waiting (they throw `LLM_CANCELLED`, not recorded) and closes the client's sockets; each record line is already written as its call ends. */
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

function liveClient(options: ChatClientOptions, meter: UsageMeter, recorder: Recorder | undefined): ChatClient {
  const caller = createEndpointCaller(options, meter);
  const attemptOptions = { timeoutMs: caller.timeoutMs, stream: options.stream ?? false, now: () => Date.now() };
  // The attempt code needs the SDK's classes: it loads with the SDK, on the first request.
  const complete = (request: ChatRequest, key: CallKey): Promise<ChatReply> =>
    caller.call(
      async (openai, _timeoutMs, closing) => (await import('./chat-attempt.ts')).attemptChat(openai, request, { ...attemptOptions, closing }),
      key,
      (result) => {
        if ('reply' in result) recorder?.write(recordEntry(key, request, { reply: result.reply }));
        else recorder?.write(recordEntry(key, request, { error: { code: result.error.code, detail: result.error.detail, retries: result.error.retries } }));
      },
    );
  return { complete, usage: () => meter.usage(), close: () => caller.close() };
}
