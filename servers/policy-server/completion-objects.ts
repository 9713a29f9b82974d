/**
 * The OpenAI response objects the policy server writes: a `chat.completion`, and the
 * `chat.completion.chunk` sequence of a streamed one (role, then content, then finish_reason,
 * then, when asked, a usage chunk with no choices).
 */
export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export interface CompletionMeta {
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly model: string;
}

export const usageOf = (promptTokens: number, completionTokens: number): Usage => ({
  prompt_tokens: promptTokens,
  completion_tokens: completionTokens,
  total_tokens: promptTokens + completionTokens,
});

export function completionObject(meta: CompletionMeta, content: string, usage: Usage) {
  return {
    id: meta.id,
    object: 'chat.completion' as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: { role: 'assistant' as const, content, refusal: null }, logprobs: null, finish_reason: 'stop' as const }],
    usage,
  };
}

type Delta = { readonly role?: 'assistant'; readonly content?: string };

function chunk(meta: CompletionMeta, delta: Delta, finish: 'stop' | null, includeUsage: boolean) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk' as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The chunk that opens the stream (sent before decoding ends). */
export const roleChunk = (meta: CompletionMeta, includeUsage: boolean) => chunk(meta, { role: 'assistant', content: '' }, null, includeUsage);

/** The chunks after decoding: the content, the finish reason, and the usage when asked. */
export function closingChunks(meta: CompletionMeta, content: string, usage: Usage | undefined): readonly object[] {
  const includeUsage = usage !== undefined;
  const chunks: object[] = [chunk(meta, { content }, null, includeUsage), chunk(meta, {}, 'stop', includeUsage)];
  if (usage !== undefined) chunks.push({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage });
  return chunks;
}
