/**
 * The body of `POST /v1/chat/completions`, validated with zod. Fields the server uses are
 * checked; any other field an OpenAI client sends (`stop`, `user`, `max_tokens`, …) is accepted
 * and ignored, since a reply is always one whole action.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../policy/llm/chat-types.ts';
import { ApiError } from './api-error.ts';

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });

const Message = z.looseObject({
  // `developer` is OpenAI's newer name for `system`.
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(TextPart)]),
});

const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

export const ChatCompletionBodySchema = z.looseObject({
  /** Any name is accepted: the server serves one model. */
  model: z.string(),
  messages: z.array(Message).min(1),
  /** 0 = greedy; absent = the checkpoint's evaluation temperature. */
  temperature: optional(z.number().min(0).max(2)),
  top_p: optional(z.number().gt(0).max(1)),
  /** The episode's sampling seed; with the turn it fixes every draw (policy/rng.ts). */
  seed: optional(z.int()),
  stream: optional(z.boolean()),
  stream_options: optional(z.looseObject({ include_usage: optional(z.boolean()) })),
  n: optional(z.literal(1, { error: 'only n = 1 is supported' })),
});

export interface ChatCompletionBody {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly topP?: number;
  readonly seed?: number;
  readonly stream: boolean;
  readonly includeUsage: boolean;
}

/** `messages.2.content` → `messages[2].content`, as OpenAI names parameters. */
function paramName(path: readonly PropertyKey[]): string | null {
  if (path.length === 0) return null;
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/** The body as the server reads it, or a 400 naming the first bad field. */
export function parseChatCompletionBody(raw: unknown): ChatCompletionBody {
  const parsed = ChatCompletionBodySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue === undefined ? null : paramName(issue.path);
    throw new ApiError(400, 'invalid_request', `${param === null ? 'body' : param}: ${issue?.message ?? 'does not match the schema'}`, param);
  }
  const body = parsed.data;
  return {
    model: body.model,
    messages: body.messages.map((m) => ({
      role: m.role === 'developer' ? 'system' : m.role,
      content: typeof m.content === 'string' ? m.content : m.content.map((part) => part.text).join(''),
    })),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}
