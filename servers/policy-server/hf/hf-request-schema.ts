/**
 * The body of `POST /v1/chat/completions` for a served Hugging Face model, validated with zod.
 * Unlike the checkpoint's endpoint (../request-schema.ts), the reply is free text, so the
 * generation fields apply: `max_tokens` (or `max_completion_tokens`), `stop`, `logprobs`, and
 * two vLLM extensions, `return_token_ids` and `return_tokens_as_token_ids`. Fields OpenAI defines
 * that do not apply here (`user`, `frequency_penalty`, …) are accepted and ignored.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../../policy/hf/tokenizer/index.ts';
import { ApiError } from '../api-error.ts';

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });

const Message = z.looseObject({
  // `developer` is OpenAI's newer name for `system`.
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(TextPart)]),
});

const optional = <T extends z.ZodType>(schema: T) => schema.nullish();
const positiveInt = z.int().min(1);

export const HfChatBodySchema = z.looseObject({
  model: z.string(),
  messages: z.array(Message).min(1, { error: 'at least one message is required' }),
  /** 0 = greedy; absent = the server's default temperature. */
  temperature: optional(z.number().min(0).max(2)),
  top_p: optional(z.number().gt(0).max(1)),
  max_tokens: optional(positiveInt),
  /** OpenAI's newer name for `max_tokens`; wins when both are sent. */
  max_completion_tokens: optional(positiveInt),
  /** Seeds the request's sampler: the same seed gives the same reply. */
  seed: optional(z.int()),
  stop: optional(z.union([z.string().min(1), z.array(z.string().min(1)).max(4)])),
  stream: optional(z.boolean()),
  stream_options: optional(z.looseObject({ include_usage: optional(z.boolean()) })),
  n: optional(z.literal(1, { error: 'only n = 1 is supported' })),
  logprobs: optional(z.boolean()),
  top_logprobs: optional(z.literal(0, { error: 'only top_logprobs = 0 is supported (the sampled token\'s log-prob)' })),
  /** vLLM's extension: `prompt_token_ids` on the reply and `token_ids` on its choice. */
  return_token_ids: optional(z.boolean()),
  /** vLLM's extension: log-prob entries name their token `token_id:<id>` instead of its text. */
  return_tokens_as_token_ids: optional(z.boolean()),
});

export interface HfChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly seed?: number;
  readonly stop: readonly string[];
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly logprobs: boolean;
  readonly returnTokenIds: boolean;
  readonly tokensAsTokenIds: boolean;
}

/** `messages.2.content` → `messages[2].content`, as OpenAI names parameters. */
function paramName(path: readonly PropertyKey[]): string | null {
  if (path.length === 0) return null;
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/** `raw` parsed by `schema`, or a 400 naming the first bad field (the chat and text routes share it). */
export function parseRequestBody<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue === undefined ? null : paramName(issue.path);
  throw new ApiError(400, 'invalid_request', `${param === null ? 'body' : param}: ${issue?.message ?? 'does not match the schema'}`, param);
}

/** The body as the server reads it, or a 400 naming the first bad field. */
export function parseHfChatBody(raw: unknown): HfChatRequest {
  const body = parseRequestBody(HfChatBodySchema, raw);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return {
    model: body.model,
    messages: body.messages.map((m) => ({
      role: m.role === 'developer' ? 'system' : m.role,
      content: typeof m.content === 'string' ? m.content : m.content.map((part) => part.text).join(''),
    })),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(maxTokens != null ? { maxTokens } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    stop: body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    logprobs: body.logprobs === true,
    returnTokenIds: body.return_token_ids === true,
    tokensAsTokenIds: body.return_tokens_as_token_ids === true,
  };
}
