import { promptOf, type EnvDefinition } from '../../envs/contract.ts';
import { createChatClient, type ChatClientOptions } from './chat-client.ts';
import { LlmPolicy } from './llm-policy.ts';
import type { ReasoningMode } from './reasoning.ts';

import { DEFAULT_BASE_URL } from './default-base-url.ts';

export { DEFAULT_BASE_URL };

/**
 * Options of `createLlmPolicy`: the model and endpoint, the env family whose prompt to use, the
 * client's limits, and record/replay.
 */
export interface CreateLlmPolicyOptions {
  readonly model: string;
  /**
   * The env the agent acts in (its definition: `getEnv('babyai')`, an app's own): its `prompt`
   * frames the task and reads replies; an env without one gets the generic Thought/Action prompt.
   * From an env id, `{ prompt: (options) => promptFor(id, options) }`.
   */
  readonly env: Pick<EnvDefinition, 'prompt'>;
  /** Default: OPENAI_BASE_URL, else DEFAULT_BASE_URL. */
  readonly baseURL?: string;
  /** Default: OPENAI_API_KEY. Never printed, logged or recorded. */
  readonly apiKey?: string;
  readonly temperature?: number;
  /** Completion tokens per turn (default 1024); 0 sends no limit (for endpoints that reject `max_tokens`, e.g. reasoning models that want `max_completion_tokens`). */
  readonly maxTokens?: number;
  /** Requests in flight across all episodes (default 16). */
  readonly concurrency?: number;
  /** Deadline of one attempt, ms (default 120 s). */
  readonly timeoutMs?: number;
  /** Retries of a failed call (default 4). */
  readonly retries?: number;
  /** Keep the first user turn and the last N exchanges. */
  readonly historyTurns?: number;
  /** Drop the oldest exchanges past this estimate of the prompt's tokens. */
  readonly maxContextTokens?: number;
  /** Show the env's available actions in each user turn when its observation does not. */
  readonly listActions?: boolean;
  /** Stream replies (SSE). */
  readonly stream?: boolean;
  /** Append every request and reply to this JSON-lines file. */
  readonly record?: string;
  /** Answer from a recording; no endpoint is contacted. */
  readonly replay?: string;
  /** Send the episode's seed with each request (default true). */
  readonly sendSeed?: boolean;
  /** `strip` (default) keeps a reasoning model's `<think>…</think>` out of action parsing and the history; `keep` leaves it in. */
  readonly reasoning?: ReasoningMode;
}

/**
 * The policy `createLlmPolicy` returns: an `LlmPolicy` that owns its chat client, so `close()`
 * ends its connections.
 */
export interface LlmAgent extends LlmPolicy {
  /** Flushes the recording, if any. */
  close(): Promise<void>;
}

/**
 * An `LlmPolicy` from plain options: the chat client (endpoint, limits, record/replay) and the
 * env's prompt (its definition's `prompt`, envs/contract.ts), with the documented defaults. What
 * `--agent openai:MODEL` builds, and what an app calls to hand a chat model to
 * `createRolloutSystem`. An app's own env brings its prompt on its definition; one without gets
 * the generic Thought/Action prompt.
 *
 * @example
 * const env = getEnv('babyai');
 * const agent = createLlmPolicy({ model: 'qwen2.5-7b-instruct', env, baseURL: 'http://127.0.0.1:8000/v1' });
 * const summary = await createRolloutSystem({ env, agent, episodes: 16 }).run();
 * console.log(summary.successRate, agent.usage());
 * await agent.close();
 */
export function createLlmPolicy(options: CreateLlmPolicyOptions): LlmAgent {
  if (options.model.trim() === '') throw new Error('an LLM agent needs a model name: --agent openai:MODEL');
  if (options.record !== undefined && options.replay !== undefined) throw new Error('give --record or --replay, not both');
  // Before issue 35 `env` was an id; an id now would silently get the generic prompt.
  if (typeof options.env !== 'object' || options.env === null) throw new Error('createLlmPolicy: `env` is an env definition (getEnv(id)), not an id');
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  const clientOptions: ChatClientOptions = {
    baseURL: options.baseURL ?? process.env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
    ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.record !== undefined ? { record: options.record } : {}),
    ...(options.replay !== undefined ? { replay: options.replay } : {}),
  };
  const client = createChatClient(clientOptions);
  const history = {
    ...(options.historyTurns !== undefined ? { historyTurns: options.historyTurns } : {}),
    ...(options.maxContextTokens !== undefined ? { maxContextTokens: options.maxContextTokens } : {}),
  };
  const policy = new LlmPolicy({
    model: options.model,
    client,
    prompt: promptOf(options.env, { listActions: options.listActions ?? false }),
    ...((options.maxTokens ?? 1024) > 0 ? { maxTokens: options.maxTokens ?? 1024 } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(Object.keys(history).length > 0 ? { history } : {}),
    ...(options.sendSeed !== undefined ? { sendSeed: options.sendSeed } : {}),
    ...(options.reasoning !== undefined ? { reasoning: options.reasoning } : {}),
  });
  return Object.assign(policy, { close: () => client.close() });
}
