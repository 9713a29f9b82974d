/**
 * `--agent openai:MODEL --tokenizer hf:DIR`: a `TokenLlmPolicy` from plain options. DIR holds the
 * model's tokenizer.json, tokenizer_config.json (or chat_template.jinja) and generation_config.json
 * (its stop ids); no weights. The chat client's text-only options do not apply: a token-exact
 * episode sends the whole conversation (no history trimming), unstreamed, and is not recorded.
 */
import { promptOf } from '../../envs/contract.ts';
import { loadHfTokenizer } from '../hf/tokenizer/index.ts';
import type { TokenRoute } from './completion-attempt.ts';
import { createTokenClient } from './completion-client.ts';
import type { CreateLlmPolicyOptions } from './create-llm-policy.ts';
import { DEFAULT_BASE_URL } from './default-base-url.ts';
import { TokenLlmPolicy } from './token-llm-policy.ts';

/** `createLlmPolicy`'s options, with the tokenizer folder and the route. */
export interface CreateTokenLlmPolicyOptions extends CreateLlmPolicyOptions {
  /** The tokenizer folder (`hf:DIR` without `hf:`). */
  readonly tokenizer: string;
  /** `completions` (default: the prompt as ids) or `chat` (a chat-only server; its ids are kept and checked). */
  readonly route?: TokenRoute;
  /** Nucleus sampling mass in (0, 1], sent as `top_p` (`--top-p`); absent: not sent. */
  readonly topP?: number;
}

/** A `TokenLlmPolicy` that owns its client: `close()` ends it. */
export interface TokenLlmAgent extends TokenLlmPolicy {
  close(): Promise<void>;
}

/** The options that make no sense token-exact, by their flag names. */
function refused(options: CreateTokenLlmPolicyOptions): string[] {
  return [
    options.historyTurns !== undefined ? '--history-turns' : undefined,
    options.maxContextTokens !== undefined ? '--max-context-tokens' : undefined,
    options.stream === true ? '--llm-stream' : undefined,
    options.record !== undefined ? '--record' : undefined,
    options.replay !== undefined ? '--replay' : undefined,
  ].filter((flag): flag is string => flag !== undefined);
}

/**
 * A token-exact LLM agent (`--agent openai:MODEL --tokenizer hf:DIR`): the chat template rendered
 * here, the prompt sent as ids, the sampled ids and log-probs kept (docs/llm-agents.md).
 *
 * @example
 * const agent = createTokenLlmPolicy({ model: 'qwen', env: getEnv('babyai'), tokenizer: 'models/Qwen2.5-0.5B-Instruct', baseURL: 'http://127.0.0.1:8000/v1' });
 */
export function createTokenLlmPolicy(options: CreateTokenLlmPolicyOptions): TokenLlmAgent {
  if (options.model.trim() === '') throw new Error('an LLM agent needs a model name: --agent openai:MODEL');
  const bad = refused(options);
  if (bad.length > 0) throw new Error(`--tokenizer keeps every turn token-exact, so ${bad.join(', ')} cannot be used with it (the whole conversation is sent as ids)`);
  const tokenizer = loadHfTokenizer(options.tokenizer, { requireChatTemplate: true });
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  const client = createTokenClient({
    baseURL: options.baseURL ?? process.env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
    ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.route !== undefined ? { route: options.route } : {}),
  });
  const policy = new TokenLlmPolicy({
    model: options.model,
    client,
    tokenizer,
    prompt: promptOf(options.env, { listActions: options.listActions ?? false }),
    ...((options.maxTokens ?? 1024) > 0 ? { maxTokens: options.maxTokens ?? 1024 } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.topP !== undefined ? { topP: options.topP } : {}),
    ...(options.sendSeed !== undefined ? { sendSeed: options.sendSeed } : {}),
  });
  return Object.assign(policy, { close: () => client.close() });
}
