/**
 * One attempt of a chat call through the `openai` SDK (its own retries off): send, read the
 * whole reply or stream under one deadline, check the shape with zod, and say what went wrong in
 * terms the retry loop acts on. Nothing here retries or waits.
 *
 * The SDK's own timeout stops at the response headers and a stream it aborts ends silently, so
 * the deadline is ours: one timer per attempt that aborts the request, whatever phase it is in,
 * and a flag that tells the timeout apart from the ways an aborted read can end.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { z } from 'zod';
import { retryAfterMs } from './backoff.ts';
import type { ChatRequest } from './chat-types.ts';
import { abortOnClose } from './abort-on-close.ts';
import type { LlmErrorCode } from './llm-error.ts';
import { isContextLengthMessage } from './context-length.ts';

/** A successful attempt, before the retry loop adds its retries. */
export interface AttemptReply {
  readonly content: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencyMs: number;
}

export interface AttemptFailure {
  readonly code: Exclude<LlmErrorCode, 'LLM_REPLAY_MISMATCH' | 'LLM_REPLAY_MISSING' | 'LLM_CANCELLED'>;
  /** Without the API key (the caller redacts) and without the call's label. */
  readonly detail: string;
  readonly retryable: boolean;
  /** What the server asked for with Retry-After / retry-after-ms. */
  readonly retryAfterMs?: number;
  /** The HTTP status of a rejection (a token-exact client falls back to chat on a 404 from /v1/completions). */
  readonly status?: number;
  /** The endpoint was not reached at all (refused, DNS, reset before an answer): what tells a dead endpoint (endpoint-caller.ts). */
  readonly unreached?: boolean;
}

export type AttemptOutcome = { readonly ok: true; readonly reply: AttemptReply } | { readonly ok: false; readonly failure: AttemptFailure };

export interface AttemptOptions {
  readonly timeoutMs: number;
  readonly stream: boolean;
  /** Wall clock for HTTP-date Retry-After values. */
  readonly now: () => number;
  /** The client's close: aborts the attempt (the retry loop then throws LLM_CANCELLED). */
  readonly closing?: AbortSignal;
}

const usageSchema = z.object({
  prompt_tokens: z.number().nonnegative().optional(),
  completion_tokens: z.number().nonnegative().optional(),
});

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
  usage: usageSchema.nullable().optional(),
});

const chunkSchema = z.object({
  choices: z.array(
    z.object({
      index: z.number().optional(),
      delta: z.object({ content: z.string().nullable().optional() }).nullable().optional(),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
  usage: usageSchema.nullable().optional(),
});

/** A 200 that is not a chat completion. */
export class BadResponse extends Error {}

function requestBody(request: ChatRequest) {
  return {
    model: request.model,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
  };
}

export async function attemptChat(openai: OpenAI, request: ChatRequest, options: AttemptOptions): Promise<AttemptOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const unhook = abortOnClose(options.closing, controller);
  const started = performance.now();
  try {
    const assembled = options.stream ? await streamed(openai, request, controller.signal) : await whole(openai, request, controller.signal);
    // An aborted stream ends as if it were complete: only the flag knows.
    if (timedOut) return { ok: false, failure: timeoutFailure(options.timeoutMs) };
    return { ok: true, reply: { ...assembled, latencyMs: performance.now() - started } };
  } catch (error) {
    if (timedOut) return { ok: false, failure: timeoutFailure(options.timeoutMs) };
    return { ok: false, failure: classify(error, options) };
  } finally {
    clearTimeout(timer);
    unhook();
  }
}

type Assembled = Omit<AttemptReply, 'latencyMs'>;

async function whole(openai: OpenAI, request: ChatRequest, signal: AbortSignal): Promise<Assembled> {
  let data: unknown;
  let response: Response;
  try {
    ({ data, response } = await openai.chat.completions.create({ ...requestBody(request), stream: false }, { signal, maxRetries: 0 }).withResponse());
  } catch (error) {
    // The SDK wraps what fails before the headers (APIError, APIConnectionError); what fails
    // after them is the body: unparsable (SyntaxError) or broken off mid-way (undici's "terminated").
    if (error instanceof APIError || error instanceof SyntaxError || signal.aborted) throw error;
    throw new BadResponse(`the body broke off: ${messageOf(error)}`);
  }
  const parsed = completionSchema.safeParse(data);
  if (!parsed.success) throw new BadResponse(`not a chat completion: ${describeBody(data, response, parsed.error)}`);
  const { choices, usage } = parsed.data;
  return {
    content: choices[0]?.message.content ?? '',
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
  };
}

async function streamed(openai: OpenAI, request: ChatRequest, signal: AbortSignal): Promise<Assembled> {
  const { data: stream, response } = await openai.chat.completions
    .create({ ...requestBody(request), stream: true, stream_options: { include_usage: true } }, { signal, maxRetries: 0 })
    .withResponse();
  const type = mediaType(response);
  if (type !== 'text/event-stream') {
    stream.controller.abort();
    throw new BadResponse(`a stream was asked for but the content type is ${type || 'missing'}`);
  }
  let content = '';
  let finished = false;
  let promptTokens = 0;
  let completionTokens = 0;
  try {
    for await (const raw of stream) {
      const chunk = chunkSchema.safeParse(raw);
      if (!chunk.success) throw new BadResponse(`a stream chunk is not a chat completion chunk: ${firstIssue(chunk.error)}`);
      for (const choice of chunk.data.choices) {
        if ((choice.index ?? 0) !== 0) continue;
        content += choice.delta?.content ?? '';
        if (choice.finish_reason !== null && choice.finish_reason !== undefined) finished = true;
      }
      if (chunk.data.usage) {
        promptTokens = chunk.data.usage.prompt_tokens ?? 0;
        completionTokens = chunk.data.usage.completion_tokens ?? 0;
      }
    }
  } catch (error) {
    if (error instanceof BadResponse || signal.aborted) throw error;
    throw new BadResponse(`the stream broke off: ${messageOf(error)}`);
  }
  if (!finished) throw new BadResponse('the stream ended before the reply was finished (no choice with a finish_reason)');
  return { content, promptTokens, completionTokens };
}

export function timeoutFailure(timeoutMs: number): AttemptFailure {
  return { code: 'LLM_TIMEOUT', detail: `no complete reply within the deadline of ${timeoutMs} ms`, retryable: true };
}

/** What a thrown error means to the retry loop (shared with completion-attempt.ts). */
export function classify(error: unknown, options: Pick<AttemptOptions, 'timeoutMs' | 'now'>): AttemptFailure {
  if (error instanceof BadResponse) return { code: 'LLM_BAD_RESPONSE', detail: error.message, retryable: true };
  if (error instanceof SyntaxError) return { code: 'LLM_BAD_RESPONSE', detail: `the body is not valid JSON (${error.message})`, retryable: true };
  if (error instanceof APIConnectionTimeoutError) return timeoutFailure(options.timeoutMs);
  if (error instanceof APIConnectionError) return { code: 'LLM_UNAVAILABLE', detail: `cannot reach the endpoint: ${messageOf(error)}`, retryable: true, unreached: true };
  if (error instanceof APIError) {
    const status = error.status;
    // A stream's `data: {"error": …}` event comes with no status: the server failed mid-reply.
    if (status === undefined) return { code: 'LLM_BAD_RESPONSE', detail: `the server reported an error mid-stream: ${error.message}`, retryable: true };
    // Checked before the status: some servers answer an overflow with a 500, which no retry cures.
    if (status !== 408 && status !== 429 && isContextLengthMessage(`${error.message} ${String(error.code ?? '')} ${error.type ?? ''}`)) {
      return { code: 'LLM_CONTEXT_LENGTH', detail: `the prompt does not fit the model's context: HTTP ${error.message}${tokenCounts(error.error)}`, retryable: false, status };
    }
    const retryAfter = retryAfterMs(error.headers, options.now());
    const asked = retryAfter !== undefined ? { retryAfterMs: retryAfter } : {};
    if (status === 408 || status === 429 || status >= 500) return { code: 'LLM_UNAVAILABLE', detail: `HTTP ${error.message}`, retryable: true, ...asked };
    return { code: 'LLM_REJECTED', detail: `the endpoint rejected the request: HTTP ${error.message}`, retryable: false, status };
  }
  return { code: 'LLM_UNAVAILABLE', detail: `the request failed: ${messageOf(error)}`, retryable: true };
}

/** llama.cpp's overflow body carries its numbers beside the message: keep them for context-length.ts. */
function tokenCounts(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { n_prompt_tokens: prompt, n_ctx: context } = body as Record<string, unknown>;
  return typeof prompt === 'number' && typeof context === 'number' ? ` (n_prompt_tokens ${prompt}, n_ctx ${context})` : '';
}

function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function describeBody(data: unknown, response: Response, error: z.ZodError): string {
  const type = mediaType(response) || 'no content type';
  if (typeof data === 'string') return `a ${type} body (${JSON.stringify(data.slice(0, 80))}${data.length > 80 ? '…' : ''})`;
  if (data === undefined || data === null) return `an empty ${type} body`;
  return `${type}, ${firstIssue(error)}`;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  return `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`;
}

/** An error's message with its cause (undici puts ECONNREFUSED and "other side closed" there). */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = cause !== undefined && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  const inner = cause !== undefined && cause.cause instanceof Error ? cause.cause.message : undefined;
  const parts = [error.message, cause?.message, inner, code].filter((part): part is string => part !== undefined && part !== '');
  return [...new Set(parts)].join(': ');
}
