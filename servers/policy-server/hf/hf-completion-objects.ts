/**
 * The OpenAI objects a served Hugging Face model answers with: a `chat.completion`, or the
 * `chat.completion.chunk` sequence of a streamed one (role, then the content, then the finish
 * reason, then, when asked, a usage chunk with no choices). With `logprobs: true` the choice
 * carries OpenAI's `logprobs.content[{ token, logprob, bytes, top_logprobs: [] }]`, one entry per
 * generated token, the stop token included. With vLLM's `return_token_ids: true` the reply carries
 * `prompt_token_ids` (the rendered prompt) and its choice `token_ids` (the generated ids, the
 * stop token included): token in, token out, as the learner needs.
 */
import { usageOf, type CompletionMeta, type Usage } from '../completion-objects.ts';
import type { HfChatRequest } from './hf-request-schema.ts';
import type { ServedGeneration } from './hf-served-model.ts';

export interface TokenLogProb {
  readonly token: string;
  readonly logprob: number;
  readonly bytes: number[];
  readonly top_logprobs: [];
}

/** What the reply needs besides the generation: the request's flags and a token's text. */
export interface ReplyShape {
  readonly request: Pick<HfChatRequest, 'logprobs' | 'returnTokenIds' | 'tokensAsTokenIds'>;
  readonly tokenText: (id: number) => string;
}

/** How a log-prob entry names its token: `token_id:<id>` (vLLM's return_tokens_as_token_ids) or its text. */
export const tokenName = (id: number, shape: ReplyShape): string => (shape.request.tokensAsTokenIds ? `token_id:${id}` : shape.tokenText(id));

export function logProbsOf(generation: ServedGeneration, shape: ReplyShape): { content: TokenLogProb[]; refusal: null } | null {
  if (!shape.request.logprobs) return null;
  const content = generation.tokens.map((id, i): TokenLogProb => {
    const token = tokenName(id, shape);
    return { token, logprob: generation.logProbs[i]!, bytes: [...Buffer.from(token, 'utf8')], top_logprobs: [] };
  });
  return { content, refusal: null };
}

export const hfUsage = (generation: ServedGeneration): Usage => usageOf(generation.promptIds.length, generation.tokens.length);

export function hfCompletionObject(meta: CompletionMeta, generation: ServedGeneration, shape: ReplyShape) {
  const ids = shape.request.returnTokenIds;
  return {
    id: meta.id,
    object: 'chat.completion' as const,
    created: meta.created,
    model: meta.model,
    choices: [{
      index: 0,
      message: { role: 'assistant' as const, content: generation.text, refusal: null },
      logprobs: logProbsOf(generation, shape),
      finish_reason: generation.finish,
      ...(ids ? { token_ids: [...generation.tokens] } : {}),
    }],
    usage: hfUsage(generation),
    ...(ids ? { prompt_token_ids: [...generation.promptIds] } : {}),
  };
}

type Delta = { readonly role?: 'assistant'; readonly content?: string };

type ChunkExtra = { readonly logprobs?: ReturnType<typeof logProbsOf>; readonly token_ids?: number[] };

function chunk(meta: CompletionMeta, delta: Delta, finish: 'stop' | 'length' | null, includeUsage: boolean, extra: ChunkExtra = {}) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk' as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...extra }],
    // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The chunk that opens the stream (sent before decoding ends). */
export const hfRoleChunk = (meta: CompletionMeta, includeUsage: boolean) => chunk(meta, { role: 'assistant', content: '' }, null, includeUsage);

/** The chunks after decoding: the content (with its log-probs and ids when asked), the finish reason, the usage when asked. */
export function hfClosingChunks(meta: CompletionMeta, generation: ServedGeneration, shape: ReplyShape, includeUsage: boolean): readonly object[] {
  const extra: ChunkExtra = {
    logprobs: logProbsOf(generation, shape),
    ...(shape.request.returnTokenIds ? { token_ids: [...generation.tokens] } : {}),
  };
  const chunks: object[] = [chunk(meta, { content: generation.text }, null, includeUsage, extra), chunk(meta, {}, generation.finish, includeUsage)];
  if (includeUsage) {
    chunks.push({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices: [],
      usage: hfUsage(generation),
      ...(shape.request.returnTokenIds ? { prompt_token_ids: [...generation.promptIds] } : {}),
    });
  }
  return chunks;
}

/**
 * A `text_completion` (`/v1/completions`): with `logprobs` the legacy shape
 * `{ tokens, token_logprobs, top_logprobs, text_offset }` (the sampled id is its own top-1); with
 * `return_token_ids` the choice carries `token_ids` and `prompt_token_ids`, as vLLM's does.
 */
export function hfTextCompletionObject(meta: CompletionMeta, generation: ServedGeneration, shape: ReplyShape) {
  const names = generation.tokens.map((id) => tokenName(id, shape));
  const offsets: number[] = [];
  let at = 0;
  for (const id of generation.tokens) {
    offsets.push(at);
    at += shape.tokenText(id).length;
  }
  const logprobs = shape.request.logprobs
    ? { tokens: names, token_logprobs: [...generation.logProbs], top_logprobs: names.map((name, i) => ({ [name]: generation.logProbs[i]! })), text_offset: offsets }
    : null;
  const ids = shape.request.returnTokenIds;
  return {
    id: meta.id,
    object: 'text_completion' as const,
    created: meta.created,
    model: meta.model,
    choices: [{
      index: 0,
      text: generation.text,
      logprobs,
      finish_reason: generation.finish,
      ...(ids ? { token_ids: [...generation.tokens], prompt_token_ids: [...generation.promptIds] } : {}),
    }],
    usage: hfUsage(generation),
  };
}
