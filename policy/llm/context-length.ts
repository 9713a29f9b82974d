/**
 * Tells a context-length rejection apart from other 4xx, and reads what numbers it gives. An
 * endpoint answers a prompt (plus `max_tokens`) that does not fit the model's window with a 400
 * whose words differ by server; these are the ones we know:
 *
 *   vLLM        "This model's maximum context length is 4096 tokens. However, you requested 5120
 *                tokens (4096 in the messages, 1024 in the completion). …"
 *               "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum
 *                context length is 4096 tokens and your request has 3500 input tokens (1024 > 4096 - 3500)."
 *               "Input prompt (5000 tokens) is too long and exceeds limit of 4096"
 *   OpenAI      code `context_length_exceeded`, "… maximum context length is 8192 tokens. However,
 *                your messages resulted in 9000 tokens. …"
 *   llama.cpp   type `exceed_context_size_error`, "the request exceeds the available context size, …"
 *               (with `n_prompt_tokens` and `n_ctx`)
 *   TGI         "`inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1024 `max_new_tokens`"
 *   Anthropic-style proxies  "prompt is too long: 210000 tokens > 200000 maximum"
 */

const PATTERNS = [
  /maximum context length/i,
  /context_length_exceeded/i,
  /context length exceeded/i,
  /exceed_context_size/i,
  /exceeds? (?:the )?(?:available )?context (?:size|window|length)/i,
  /prompt is too long/i,
  /is too long and exceeds limit/i,
  /tokens \+ `?max_new_tokens`? must be <=/i,
  /(?:max_tokens|max_completion_tokens)'? (?:or '?max_completion_tokens'? )?is too large/i,
  /context window/i,
];

/** The endpoint's words say the prompt (plus the completion budget) does not fit the model. */
export function isContextLengthMessage(text: string): boolean {
  return PATTERNS.some((pattern) => pattern.test(text));
}

/** What a context-length message says, when it says it. */
export interface ContextLimits {
  /** The model's window, tokens. */
  readonly limit?: number;
  /** Tokens of the prompt as the server counted them. */
  readonly prompt?: number;
}

const LIMIT = [/maximum context length is (\d+)/i, /exceeds limit of (\d+)/i, /"?n_ctx"?\s*[:=]?\s*(\d+)/i, /must be <= (\d+)/i, /(\d+) maximum/i];
const PROMPT = [
  /\((\d+) in the messages/i,
  /request has (\d+) input tokens/i,
  /Input prompt \((\d+) tokens\)/i,
  /"?n_prompt_tokens"?\s*[:=]?\s*(\d+)/i,
  /messages resulted in (\d+) tokens/i,
  /Given: (\d+) `?inputs`? tokens/i,
  /prompt is too long: (\d+) tokens/i,
];

function first(text: string, patterns: readonly RegExp[]): number | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined) return Number(match[1]);
  }
  return undefined;
}

export function contextLimits(text: string): ContextLimits {
  const limit = first(text, LIMIT);
  const prompt = first(text, PROMPT);
  return { ...(limit !== undefined ? { limit } : {}), ...(prompt !== undefined ? { prompt } : {}) };
}
