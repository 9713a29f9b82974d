/**
 * The agent options of `actorgym eval` that change results, as config.json keeps them: a resumed
 * evaluation that changes one is refused (`EVAL_CONFIG_MISMATCH: … (--temperature: 0 → 0.7)`)
 * rather than mixing two configurations into one Avg@n. Each value is what the agent actually
 * uses (a default filled in), null when the option is not given and has no default; credentials
 * never (the base URL is kept without user info or query).
 *
 * Kept: `--base-url`, `--temperature`, `--max-tokens`, `--history-turns`, `--max-context-tokens`,
 * `--list-actions`, `--llm-stream`, `--reasoning`, `--tokenizer`, `--token-route`, `--top-p`,
 * `--adapter`, `--max-new-tokens`. Not kept (they change cost or speed, not what the agent does):
 * concurrency, timeouts, retries, `--record`/`--replay`, `--api-key`, the backend.
 */
import type { OptionValue } from '../../eval/eval-config.ts';
import { publicEndpoint } from '../../policy/llm/endpoint-auth.ts';
import { DEFAULT_BASE_URL } from '../../policy/llm/default-base-url.ts';
import type { EvalOptions } from './eval.ts';

export function resultOptions(flags: EvalOptions, agent: string): Record<string, OptionValue> {
  const given = <T extends OptionValue>(value: T | undefined): T | null => value ?? null;
  if (agent.startsWith('openai:')) {
    return {
      '--base-url': publicEndpoint(flags.baseUrl ?? process.env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL),
      '--temperature': given(flags.temperature),
      '--max-tokens': flags.maxTokens ?? 1024,
      '--history-turns': given(flags.historyTurns),
      '--max-context-tokens': given(flags.maxContextTokens),
      '--list-actions': flags.listActions === true,
      '--llm-stream': flags.llmStream === true,
      '--reasoning': flags.reasoning ?? 'strip',
      '--tokenizer': given(flags.tokenizer),
      '--token-route': given(flags.tokenRoute),
      '--top-p': given(flags.topP),
    };
  }
  if (agent.startsWith('hf:') || agent.startsWith('checkpoint:')) {
    return {
      '--temperature': given(flags.temperature),
      '--adapter': given(flags.adapter),
      '--max-new-tokens': given(flags.maxNewTokens),
      '--top-p': given(flags.topP),
      '--list-actions': flags.listActions === true,
    };
  }
  return {};
}
