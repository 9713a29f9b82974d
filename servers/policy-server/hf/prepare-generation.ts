/**
 * A chat request as the generation it asks for: the messages rendered with the model's own chat
 * template (with the assistant's generation prompt) and encoded, the sampling settings with the
 * server's defaults filled in, a seed, and how many tokens may be generated. A request that does
 * not fit the model's context is refused here, before it is queued, with a 400 naming the numbers.
 */
import type { HfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { errorMessage } from '../../../envs/error-message.ts';
import { ApiError } from '../api-error.ts';
import type { HfChatRequest } from './hf-request-schema.ts';

export interface GenerationDefaults {
  /** Tokens of a request that sends no `max_tokens` (lowered to what the context leaves). */
  readonly defaultMaxTokens: number;
  /** The most a request gets: a larger `max_tokens` is lowered to it (undefined: only the context bounds it). */
  readonly maxTokensCap?: number;
  /** Temperature of a request that sends none. */
  readonly temperature: number;
  /** top_p of a request that sends none. */
  readonly topP: number;
  /** The seed of a request that sends none. */
  readonly randomSeed: () => number;
}

/** One request's generation, as the batch runs it. */
export interface PreparedGeneration {
  readonly promptIds: readonly number[];
  readonly maxNewTokens: number;
  readonly temperature: number;
  readonly topP: number;
  readonly seed: number;
}

/** The sampling fields of a request (chat or completions). */
export type SamplingRequest = Pick<HfChatRequest, 'maxTokens' | 'temperature' | 'topP' | 'seed'>;

export function prepareGeneration(request: HfChatRequest, tokenizer: HfTokenizer, context: number, defaults: GenerationDefaults): PreparedGeneration {
  return prepareFromIds(renderPrompt(request, tokenizer), request, context, defaults, 'messages');
}

/**
 * A generation of given prompt ids (`/v1/completions`, and a chat request once rendered);
 * `promptParam` names the field a prompt too long for the context is blamed on.
 */
export function prepareFromIds(promptIds: readonly number[], request: SamplingRequest, context: number, defaults: GenerationDefaults, promptParam: string): PreparedGeneration {
  const prompt = promptIds.length;
  const room = context - prompt;
  let maxNewTokens: number;
  if (request.maxTokens !== undefined) {
    maxNewTokens = Math.min(request.maxTokens, defaults.maxTokensCap ?? request.maxTokens);
    if (prompt + maxNewTokens > context) {
      const asked = maxNewTokens === request.maxTokens ? `max_tokens ${maxNewTokens}` : `max_tokens ${request.maxTokens} (lowered to the server's cap of ${maxNewTokens})`;
      throw new ApiError(
        400,
        'invalid_request',
        `the prompt is ${prompt} tokens and ${asked}: ${prompt + maxNewTokens} is over the model's context of ${context} tokens (config.json max_position_embeddings); send max_tokens ≤ ${Math.max(0, room)} or a shorter ${promptParam === 'messages' ? 'conversation' : 'prompt'}`,
        'max_tokens',
      );
    }
  } else {
    maxNewTokens = Math.min(defaults.defaultMaxTokens, defaults.maxTokensCap ?? room, room);
    if (maxNewTokens < 1) {
      throw new ApiError(400, 'invalid_request', `the prompt is ${prompt} tokens: it leaves no room in the model's context of ${context} tokens (config.json max_position_embeddings)`, promptParam);
    }
  }
  return {
    promptIds,
    maxNewTokens,
    temperature: request.temperature ?? defaults.temperature,
    topP: request.topP ?? defaults.topP,
    seed: request.seed ?? defaults.randomSeed(),
  };
}

/** The ids of `apply_chat_template(messages, add_generation_prompt=True, tokenize=True)`; a template that refuses the messages is a 400. */
function renderPrompt(request: HfChatRequest, tokenizer: HfTokenizer): number[] {
  try {
    return tokenizer.encodeChat(request.messages, { addGenerationPrompt: true });
  } catch (error) {
    throw new ApiError(400, 'invalid_request', `messages: the model's chat template (${tokenizer.dir}) could not render them: ${errorMessage(error)}`, 'messages');
  }
}
