/**
 * `--judge openai:MODEL` (rollout, eval): the web env, or WebArena's tasks (`--env webarena:PATH`),
 * grade free-text answers (`fuzzy_match`) with this chat model, as WebArena does; off by default. The judge calls the
 * endpoint of `--base-url` / `--api-key` (else OPENAI_BASE_URL / OPENAI_API_KEY) at temperature 0,
 * with `--llm-timeout` and `--llm-retries`. The web env is made in this process, so `--remote` is
 * refused (a server's envs have no judge). See docs/envs/web-evaluators.md.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { EnvDefinition } from '../envs/contract.ts';
import type { AnswerJudge, JudgeChat } from '../envs/web/tasks/judge.ts';
import type { LlmFlags } from './llm-options.ts';

export interface JudgeFlags {
  judge?: string;
}

/** The judge's model, from `openai:MODEL`. */
export function parseJudgeSpec(text: string): string {
  if (!text.startsWith('openai:') || text.length === 'openai:'.length) throw new InvalidArgumentError(`--judge takes openai:MODEL (a chat model at --base-url), got "${text}"`);
  return text;
}

export function addJudgeOption(command: Command): Command {
  return command.option('--judge <openai:MODEL>', 'web env only: grade free-text answers (fuzzy_match) with this chat model at --base-url, as WebArena does (default: no judge; typed answers never use it)', parseJudgeSpec);
}

export interface JudgedEnv {
  readonly env: EnvDefinition;
  /** `openai:MODEL`, for the results. */
  readonly name: string;
  close(): Promise<void>;
}

type EndpointFlags = Pick<LlmFlags, 'baseUrl' | 'apiKey' | 'llmTimeout' | 'llmRetries'>;

/** The chat function of the judge `name` (`openai:MODEL`) over the endpoint of the LLM flags, and the client's close. */
export async function endpointJudgeChat(name: string, flags: EndpointFlags): Promise<{ chat: JudgeChat; close(): Promise<void> }> {
  const [{ createChatClient }, { DEFAULT_BASE_URL }] = await Promise.all([import('../policy/llm/chat-client.ts'), import('../policy/llm/default-base-url.ts')]);
  const apiKey = flags.apiKey ?? process.env.OPENAI_API_KEY;
  const client = createChatClient({
    baseURL: flags.baseUrl ?? process.env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
    ...(apiKey !== undefined ? { apiKey } : {}),
    timeoutMs: Math.round(flags.llmTimeout * 1000),
    retries: flags.llmRetries,
  });
  const model = name.slice('openai:'.length);
  let calls = 0;
  // WebArena's judge: temperature 0, up to 768 tokens.
  const chat: JudgeChat = async (messages) => (await client.complete({ model, messages, temperature: 0, maxTokens: 768 }, { episodeId: 'judge', turn: calls++ })).content;
  return { chat, close: () => client.close() };
}

/** The judge `name` (`openai:MODEL`) over the chat endpoint of the LLM flags, and the client's close. */
export async function endpointJudge(name: string, flags: EndpointFlags): Promise<{ judge: AnswerJudge; close(): Promise<void> }> {
  const [{ createChatJudge }, { chat, close }] = await Promise.all([import('../envs/web/tasks/judge.ts'), endpointJudgeChat(name, flags)]);
  return { judge: createChatJudge(name, chat), close };
}

/**
 * The web env (or WebArena's tasks, `webarena:PATH`) with the judge of `--judge` (and screenshots
 * when asked); refuses another env or `--remote`.
 */
export async function judgedWebEnv(envId: string, flags: JudgeFlags & EndpointFlags & { remote?: string; screenshots?: boolean }): Promise<JudgedEnv> {
  const name = parseJudgeSpec(flags.judge ?? '');
  const webarena = envId.startsWith('webarena:') ? envId.slice('webarena:'.length) : undefined;
  if (envId !== 'web' && webarena === undefined) throw new Error(`--judge grades free-text answers of the web env and of WebArena's tasks: it needs --env web or --env webarena:PATH (env "${envId}" has no judge)`);
  if (flags.remote !== undefined) throw new Error('--judge needs the web env in this process: drop --remote (a server\'s envs have no judge)');
  if (webarena !== undefined) {
    const [{ createWebArenaDefinition, describeSkipped, webArenaJudgeFromChat }, { chat, close }] = await Promise.all([import('../envs/web/webarena/index.ts'), endpointJudgeChat(name, flags)]);
    const env = createWebArenaDefinition({ tasks: webarena, judge: webArenaJudgeFromChat(chat) });
    for (const line of describeSkipped(env.loaded)) process.emitWarning(`webarena: ${line}`, { code: 'ACTORGYM_WEBARENA_SKIPPED' });
    return { env, name, close };
  }
  const [{ createWebDefinition }, { judge, close }] = await Promise.all([import('../envs/web/index.ts'), endpointJudge(name, flags)]);
  return { env: createWebDefinition({ judge, ...(flags.screenshots ? { screenshots: true } : {}) }), name, close };
}
