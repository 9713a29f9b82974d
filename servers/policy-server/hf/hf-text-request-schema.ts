/**
 * The body of `POST /v1/completions` for a served Hugging Face model, validated with zod: the
 * prompt as token ids (what vLLM and SGLang accept, and what a token-exact client sends: the chat
 * template rendered on its side) or as text, and the generation fields of the chat route. One
 * prompt per request, unstreamed, without echo; `logprobs` 0 or 1 gives each sampled id's log-prob.
 */
import { z } from 'zod';
import { parseRequestBody } from './hf-request-schema.ts';
import type { SamplingRequest } from './prepare-generation.ts';

const optional = <T extends z.ZodType>(schema: T) => schema.nullish();
const positiveInt = z.int().min(1);
const ids = z.array(z.int().min(0)).min(1, { error: 'a prompt of token ids needs at least one id' });

export const HfTextBodySchema = z.looseObject({
  model: z.string(),
  prompt: z.union([z.string().min(1), ids, z.array(ids).length(1, { error: 'one prompt per request' }), z.array(z.string().min(1)).length(1, { error: 'one prompt per request' })]),
  temperature: optional(z.number().min(0).max(2)),
  top_p: optional(z.number().gt(0).max(1)),
  max_tokens: optional(positiveInt),
  seed: optional(z.int()),
  stop: optional(z.union([z.string().min(1), z.array(z.string().min(1)).max(4)])),
  stream: optional(z.literal(false, { error: 'stream: only unstreamed completions are served on /v1/completions' })),
  n: optional(z.literal(1, { error: 'only n = 1 is supported' })),
  echo: optional(z.literal(false, { error: 'echo is not supported' })),
  /** The legacy field: how many top log-probs per token; 0 or 1 give the sampled id's. */
  logprobs: optional(z.int().min(0).max(1, { error: 'only logprobs ≤ 1 is supported (the sampled token\'s log-prob)' })),
  return_token_ids: optional(z.boolean()),
  return_tokens_as_token_ids: optional(z.boolean()),
});

export interface HfTextRequest extends SamplingRequest {
  readonly model: string;
  readonly prompt: { readonly ids: readonly number[] } | { readonly text: string };
  readonly stop: readonly string[];
  readonly logprobs: boolean;
  readonly returnTokenIds: boolean;
  readonly tokensAsTokenIds: boolean;
}

/** The body as the server reads it, or a 400 naming the first bad field. */
export function parseHfTextBody(raw: unknown): HfTextRequest {
  const body = parseRequestBody(HfTextBodySchema, raw);
  const first = Array.isArray(body.prompt) && body.prompt.length === 1 && typeof body.prompt[0] !== 'number' ? body.prompt[0]! : body.prompt;
  return {
    model: body.model,
    prompt: typeof first === 'string' ? { text: first } : { ids: first as number[] },
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(body.max_tokens != null ? { maxTokens: body.max_tokens } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    stop: body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop,
    logprobs: body.logprobs != null,
    returnTokenIds: body.return_token_ids === true,
    tokensAsTokenIds: body.return_tokens_as_token_ids === true,
  };
}
