/**
 * A token-exact reply read out of an OpenAI-compatible response: the sampled ids, their log-probs,
 * the text, why it ended, and the prompt's ids when the server echoes them. Servers name the ids
 * in one of two ways, both read here:
 *
 * - a `token_ids` array on the choice (vLLM's `return_token_ids`, our serve-policy), with
 *   `prompt_token_ids` on the choice (vLLM's completions) or on the response (chat);
 * - log-prob entries named `token_id:<id>` (vLLM's `return_tokens_as_token_ids`).
 *
 * A response with neither, or with log-probs that do not line up with its ids, cannot be used for
 * training: the error says which field is missing (the caller refuses the endpoint).
 */
import { z } from 'zod';

export interface TokenReplyBody {
  /** Sampled ids, the stop id included when the server returns it. */
  readonly ids: number[];
  /** Sampling log-prob of each id. */
  readonly logProbs: number[];
  /** The server's text of the reply (special tokens left out, as servers do). */
  readonly text: string;
  /** `stop`, `length`, … as the server says. */
  readonly finish: string;
  /** The prompt's ids as the server read them, when it says. */
  readonly promptIds?: number[];
  readonly promptTokens: number;
  readonly completionTokens: number;
}

const ids = z.array(z.int().min(0)).nullish();
const usage = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullish();

const CompletionBody = z.object({
  choices: z.array(z.object({
    text: z.string(),
    finish_reason: z.string().nullish(),
    token_ids: ids,
    prompt_token_ids: ids,
    logprobs: z.object({ tokens: z.array(z.string()).nullish(), token_logprobs: z.array(z.number().nullable()).nullish() }).nullish(),
  })).min(1),
  prompt_token_ids: ids,
  usage,
});

const ChatBody = z.object({
  choices: z.array(z.object({
    message: z.object({ content: z.string().nullish() }),
    finish_reason: z.string().nullish(),
    token_ids: ids,
    /** SGLang puts it on the choice; vLLM and serve-policy on the response. */
    prompt_token_ids: ids,
    logprobs: z.object({ content: z.array(z.object({ token: z.string(), logprob: z.number() })).nullish() }).nullish(),
  })).min(1),
  prompt_token_ids: ids,
  usage,
});

/** What went wrong reading a response: `shape` (not a completion at all, retried) or `contract` (no ids or log-probs: the endpoint cannot do this). */
export class TokenReplyError extends Error {
  constructor(readonly kind: 'shape' | 'contract', message: string) {
    super(message);
  }
}

/** Ids from `token_id:<id>` log-prob names; undefined when any entry is named otherwise. */
export function idsFromTokenNames(names: readonly string[]): number[] | undefined {
  const out: number[] = [];
  for (const name of names) {
    const match = /^token_id:(\d+)$/.exec(name);
    if (match === null) return undefined;
    out.push(Number(match[1]));
  }
  return out;
}

function assemble(route: string, ids: number[] | null | undefined, names: readonly string[] | undefined, logProbs: readonly (number | null)[] | undefined): { ids: number[]; logProbs: number[] } {
  const sampled = ids ?? (names !== undefined ? idsFromTokenNames(names) : undefined);
  if (sampled === undefined) {
    throw new TokenReplyError('contract', `${route}: the reply carries no token ids (neither choices[0].token_ids nor log-prob tokens named token_id:<id>); ` +
      'the server must support vLLM\'s return_token_ids or return_tokens_as_token_ids');
  }
  if (logProbs === undefined) throw new TokenReplyError('contract', `${route}: the reply carries no log-probs (choices[0].logprobs) though they were asked for`);
  if (logProbs.length !== sampled.length || logProbs.some((p) => p === null)) {
    throw new TokenReplyError('contract', `${route}: ${sampled.length} token ids but ${logProbs.length} log-probs${logProbs.some((p) => p === null) ? ' (some null)' : ''}`);
  }
  return { ids: sampled, logProbs: logProbs as number[] };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? 'invalid' : `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`;
}

/** A `/v1/completions` response (`text_completion`). */
export function readCompletionReply(body: unknown): TokenReplyBody {
  const parsed = CompletionBody.safeParse(body);
  if (!parsed.success) throw new TokenReplyError('shape', `not a text completion: ${firstIssue(parsed.error)}`);
  const choice = parsed.data.choices[0]!;
  const got = assemble('/v1/completions', choice.token_ids, choice.logprobs?.tokens ?? undefined, choice.logprobs?.token_logprobs ?? undefined);
  const promptIds = choice.prompt_token_ids ?? parsed.data.prompt_token_ids ?? undefined;
  return {
    ...got,
    text: choice.text,
    finish: choice.finish_reason ?? 'stop',
    ...(promptIds !== undefined ? { promptIds } : {}),
    promptTokens: parsed.data.usage?.prompt_tokens ?? promptIds?.length ?? 0,
    completionTokens: parsed.data.usage?.completion_tokens ?? got.ids.length,
  };
}

/** A `/v1/chat/completions` response asked for log-probs and token ids. */
export function readChatTokenReply(body: unknown): TokenReplyBody {
  const parsed = ChatBody.safeParse(body);
  if (!parsed.success) throw new TokenReplyError('shape', `not a chat completion: ${firstIssue(parsed.error)}`);
  const choice = parsed.data.choices[0]!;
  const entries = choice.logprobs?.content ?? undefined;
  const got = assemble('/v1/chat/completions', choice.token_ids, entries?.map((e) => e.token), entries?.map((e) => e.logprob));
  const promptIds = choice.prompt_token_ids ?? parsed.data.prompt_token_ids ?? undefined;
  return {
    ...got,
    text: choice.message.content ?? '',
    finish: choice.finish_reason ?? 'stop',
    ...(promptIds !== undefined ? { promptIds } : {}),
    promptTokens: parsed.data.usage?.prompt_tokens ?? promptIds?.length ?? 0,
    completionTokens: parsed.data.usage?.completion_tokens ?? got.ids.length,
  };
}
