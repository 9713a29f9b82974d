/**
 * The flags of an `openai:MODEL` agent and of an `hf:DIR` agent, shared by every command that
 * takes `--agent` (rollout, eval, collect). The API key is read here and handed to the client; it
 * is never printed, not even as a default in `--help`.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CreateLlmPolicyOptions } from '../policy/llm/create-llm-policy.ts';
import { DEFAULT_BASE_URL } from '../policy/llm/default-base-url.ts';
import type { TokenRoute } from '../policy/llm/completion-attempt.ts';
import { REASONING_MODES, type ReasoningMode } from '../policy/llm/reasoning.ts';
import { nonNegativeInt, positiveInt } from './output.ts';

/** What `addLlmOptions` parses, as commander hands it over. */
export interface LlmFlags {
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  llmConcurrency: number;
  llmTimeout: number;
  llmRetries: number;
  historyTurns?: number;
  maxContextTokens?: number;
  listActions?: boolean;
  llmStream?: boolean;
  record?: string;
  replay?: string;
  tokenizer?: string;
  tokenRoute?: TokenRoute;
  reasoning?: ReasoningMode;
}

/** An openai: agent's options; `tokenizer` (a folder) makes its episodes token-exact (policy/llm/token-llm-policy.ts). */
export type LlmAgentOptions = Omit<CreateLlmPolicyOptions, 'model' | 'env'> & { readonly tokenizer?: string; readonly route?: TokenRoute };

function tokenizerSpec(text: string): string {
  if (!text.startsWith('hf:') || text.length === 3) throw new InvalidArgumentError(`--tokenizer takes hf:DIR (a folder with tokenizer.json, tokenizer_config.json and generation_config.json), got "${text}"`);
  return text.slice(3);
}

function temperature(text: string): number {
  const value = Number(text);
  if (!(text.trim() !== '' && Number.isFinite(value) && value >= 0)) throw new InvalidArgumentError(`--temperature must be a number ≥ 0, got "${text}"`);
  return value;
}

function seconds(text: string): number {
  const value = Number(text);
  if (!(text.trim() !== '' && Number.isFinite(value) && value > 0)) throw new InvalidArgumentError(`--llm-timeout must be a number of seconds > 0, got "${text}"`);
  return value;
}

function topP(text: string): number {
  const value = Number(text);
  if (!(text.trim() !== '' && Number.isFinite(value) && value > 0 && value <= 1)) throw new InvalidArgumentError(`--top-p must be a number in (0, 1], got "${text}"`);
  return value;
}

/** What `addHfAgentOptions` parses. */
export interface HfAgentFlags {
  adapter?: string;
  maxNewTokens?: number;
  topP?: number;
}

/** What an `hf:DIR` agent is loaded with (cli/agent-spec.ts). */
export interface HfAgentOptions {
  readonly adapter?: string;
  readonly maxNewTokens?: number;
  readonly topP?: number;
}

/** Adds the `hf:DIR` agent's flags (its temperature is `--temperature`, from `addLlmOptions`). */
export function addHfAgentOptions(command: Command): Command {
  return command
    .option('--adapter <dir>', 'a peft LoRA adapter folder (adapter_config.json, adapter_model.safetensors) for an hf:DIR agent\'s model')
    .option('--max-new-tokens <n>', 'most tokens of one reply of an hf:DIR agent (default 256); a reply cut there is parsed as it is', positiveInt('--max-new-tokens'))
    .option('--top-p <p>', 'nucleus sampling mass of an hf:DIR agent (default 1), or of an openai:MODEL --tokenizer agent (sent as top_p; default: the server\'s)', topP);
}

export function hfAgentOptionsFrom(flags: HfAgentFlags): HfAgentOptions {
  return {
    ...(flags.adapter !== undefined ? { adapter: flags.adapter } : {}),
    ...(flags.maxNewTokens !== undefined ? { maxNewTokens: flags.maxNewTokens } : {}),
    ...(flags.topP !== undefined ? { topP: flags.topP } : {}),
  };
}

/** Adds the LLM agent's flags. `--temperature` also sets a checkpoint or hf: agent's sampling temperature. */
export function addLlmOptions(command: Command): Command {
  return command
    .option('--base-url <url>', `OpenAI-compatible endpoint of an openai:MODEL agent (default: OPENAI_BASE_URL, else ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'API key of the endpoint (default: OPENAI_API_KEY); never printed or logged')
    .option('--temperature <t>', 'sampling temperature, 0 = greedy (openai: default the server\'s; checkpoint: the run\'s evaluation temperature; hf: 1)', temperature)
    .option('--max-tokens <n>', 'completion tokens per LLM turn (default 1024; 0 = send no limit)', nonNegativeInt('--max-tokens'))
    .option('--llm-concurrency <n>', 'LLM requests in flight across all episodes', positiveInt('--llm-concurrency'), 16)
    .option('--llm-timeout <s>', 'deadline of one LLM call, seconds', seconds, 120)
    .option('--llm-retries <n>', 'retries of a failed LLM call (refused, reset, 5xx, 429, past its deadline) before the episode is aborted', nonNegativeInt('--llm-retries'), 4)
    .option('--history-turns <n>', 'send the first turn and the last N exchanges (default: the whole conversation)', nonNegativeInt('--history-turns'))
    .option('--max-context-tokens <n>', 'drop the oldest exchanges (never the first turn) past this many prompt tokens (estimated as characters / 4)', positiveInt('--max-context-tokens'))
    .option('--list-actions', 'show the env\'s available actions in every user turn when its observation does not')
    .option('--llm-stream', 'ask for streamed (SSE) replies')
    .addOption(new Option('--reasoning <mode>', 'a reasoning model\'s <think>…</think>: strip (default) keeps it out of action parsing and of the history sent back; keep leaves it in (the trajectory keeps the reply whole either way)').choices(REASONING_MODES as string[]))
    .option('--record <file>', 'append every LLM request and reply to this JSON-lines file')
    .option('--replay <file>', 'answer LLM calls from a recording; no endpoint is contacted')
    .option('--tokenizer <hf:DIR>', 'token-exact episodes of an openai:MODEL agent: render the chat template here with the model\'s tokenizer (DIR: tokenizer.json, tokenizer_config.json, generation_config.json; no weights) and send the prompt as ids', tokenizerSpec)
    .addOption(new Option('--token-route <route>', 'with --tokenizer: completions (prompt ids on /v1/completions) or chat (a chat-only server: the ids it returns are kept and checked); default completions, falling back to chat when the server answers 404').choices(['completions', 'chat']));
}

export function llmOptionsFrom(flags: LlmFlags): LlmAgentOptions {
  return {
    ...(flags.baseUrl !== undefined ? { baseURL: flags.baseUrl } : {}),
    ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
    ...(flags.temperature !== undefined ? { temperature: flags.temperature } : {}),
    ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
    concurrency: flags.llmConcurrency,
    timeoutMs: Math.round(flags.llmTimeout * 1000),
    retries: flags.llmRetries,
    ...(flags.historyTurns !== undefined ? { historyTurns: flags.historyTurns } : {}),
    ...(flags.maxContextTokens !== undefined ? { maxContextTokens: flags.maxContextTokens } : {}),
    ...(flags.listActions ? { listActions: true } : {}),
    ...(flags.llmStream ? { stream: true } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    ...(flags.replay !== undefined ? { replay: flags.replay } : {}),
    ...(flags.tokenizer !== undefined ? { tokenizer: flags.tokenizer } : {}),
    ...(flags.tokenRoute !== undefined ? { route: flags.tokenRoute } : {}),
    ...(flags.reasoning !== undefined ? { reasoning: flags.reasoning } : {}),
  };
}
