/**
 * One attempt of a token-exact call (its retries are endpoint-caller.ts's): the prompt as token
 * ids on `/v1/completions`, or, for a server that only takes chat requests, the conversation on
 * `/v1/chat/completions`; either way asking for the sampled ids and their log-probs in every way
 * vLLM and our serve-policy understand (`logprobs`, `return_token_ids`,
 * `return_tokens_as_token_ids`). The deadline is ours, as in chat-attempt.ts.
 */
import type OpenAI from 'openai';
import { APIError } from 'openai';
import { abortOnClose } from './abort-on-close.ts';
import { BadResponse, classify, messageOf, timeoutFailure } from './chat-attempt.ts';
import type { Outcome } from './endpoint-caller.ts';
import { readChatTokenReply, readCompletionReply, TokenReplyError, type TokenReplyBody } from './token-reply.ts';

/** What one token-exact turn asks for. */
export interface TokenRequest {
  readonly model: string;
  /** The whole conversation so far as ids (the completions route sends these). */
  readonly promptIds: readonly number[];
  /** The same conversation as messages (the chat route sends these). */
  readonly messages: readonly { readonly role: string; readonly content?: string | null }[];
  readonly temperature?: number;
  /** Nucleus sampling mass in (0, 1], sent as `top_p`; absent: the server's default. */
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly seed?: number;
}

/** Which route carries the prompt: ids on `/v1/completions` (exact), or messages on `/v1/chat/completions` (the server renders). */
export type TokenRoute = 'completions' | 'chat';

export interface TokenReply extends TokenReplyBody {
  readonly latencyMs: number;
}

const TOKEN_FIELDS = { return_token_ids: true, return_tokens_as_token_ids: true } as const;

function sampling(request: TokenRequest) {
  return {
    model: request.model,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...TOKEN_FIELDS,
  };
}

async function send(openai: OpenAI, route: TokenRoute, request: TokenRequest, signal: AbortSignal): Promise<unknown> {
  // The SDK passes fields it does not know (vLLM's) through to the body as they are.
  const options = { signal, maxRetries: 0 };
  try {
    if (route === 'completions') {
      const body = { ...sampling(request), prompt: [...request.promptIds], logprobs: 1, stream: false as const };
      return await openai.completions.create(body as Parameters<typeof openai.completions.create>[0] & { stream: false }, options);
    }
    const body = { ...sampling(request), messages: request.messages.map((m) => ({ role: m.role, content: m.content ?? '' })), logprobs: true, top_logprobs: 0, stream: false as const };
    return await openai.chat.completions.create(body as Parameters<typeof openai.chat.completions.create>[0] & { stream: false }, options);
  } catch (error) {
    if (error instanceof APIError || error instanceof SyntaxError || signal.aborted) throw error;
    throw new BadResponse(`the body broke off: ${messageOf(error)}`);
  }
}

/** `closing`: the client's close, which aborts the attempt (the retry loop then throws LLM_CANCELLED). */
export async function attemptTokens(openai: OpenAI, route: TokenRoute, request: TokenRequest, timeoutMs: number, closing?: AbortSignal): Promise<Outcome<TokenReply>> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const unhook = abortOnClose(closing, controller);
  const started = performance.now();
  try {
    const body = await send(openai, route, request, controller.signal);
    const reply = route === 'completions' ? readCompletionReply(body) : readChatTokenReply(body);
    return { ok: true, reply: { ...reply, latencyMs: performance.now() - started } };
  } catch (error) {
    if (timedOut) return { ok: false, failure: timeoutFailure(timeoutMs) };
    if (error instanceof TokenReplyError) {
      // A server that cannot return ids or log-probs will not on a retry: the run stops (LLM_REJECTED is fatal).
      return error.kind === 'contract'
        ? { ok: false, failure: { code: 'LLM_REJECTED', detail: `the endpoint cannot serve token-exact turns: ${error.message}`, retryable: false } }
        : { ok: false, failure: { code: 'LLM_BAD_RESPONSE', detail: error.message, retryable: true } };
    }
    return { ok: false, failure: classify(error, { timeoutMs, now: () => Date.now() }) };
  } finally {
    clearTimeout(timer);
    unhook();
  }
}
