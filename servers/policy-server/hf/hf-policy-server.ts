/**
 * `actorgym serve-policy --policy hf:DIR`: a Hugging Face causal LM behind the same
 * OpenAI-compatible endpoint, request gate, health probes and drain as a checkpoint
 * (../policy-server.ts):
 *
 *   GET  /v1/models            → { object: 'list', data: [{ id: 'hf:<name>', object: 'model', … }] }
 *   POST /v1/chat/completions  → a chat.completion, or with `stream: true` an SSE stream
 *   POST /v1/completions       → a text_completion of a prompt of token ids (or text), with the
 *                                sampled ids and log-probs (hf-text-completion.ts; issue 38)
 *
 * Unlike a checkpoint, any conversation is served: the messages are rendered with the model's own
 * chat template and the reply is free text. Fields read: `model` (the served id or the folder
 * name; another is a 400), `messages`, `temperature`, `top_p`, `max_tokens` /
 * `max_completion_tokens`, `seed`, `stop`, `stream`, `stream_options.include_usage`, `n` (1),
 * `logprobs` with `top_logprobs` 0, and vLLM's `return_token_ids` and `return_tokens_as_token_ids`
 * (hf-completion-objects.ts). Generation stops at the ids of generation_config.json (and the
 * tokenizer's eos_token). A checkpoint's server has no `/v1/completions` route.
 * `/healthz` and `/readyz` add the batch counts: `batches`, `requests`, `largestBatch` and
 * `recentSizes` (the last 64 batch sizes, space-separated).
 */
import { DEFAULT_MAX_BODY_BYTES } from '../limits.ts';
import { listenPolicy, type PolicyListenOptions, type PolicyServer } from '../policy-server.ts';
import { HfChatCompletion } from './hf-chat-completion.ts';
import { HfTextCompletion } from './hf-text-completion.ts';
import { HfServedModel, type HfServedModelOptions } from './hf-served-model.ts';

export interface HfPolicyServerOptions extends PolicyListenOptions, HfServedModelOptions {
  /** Other names a request may use for the model (the folder name). */
  readonly aliases?: readonly string[];
}

/**
 * Starts an OpenAI-compatible chat endpoint for a Hugging Face model. Resolves once listening;
 * `url` is the base URL to give a client, `served.stats` counts the batches decoded.
 *
 * @example
 * const hf = await loadServedHf('models/Qwen2.5-0.5B-Instruct');
 * const server = await startHfPolicyServer({ port: 8000, ...hf });
 * const reply = await new OpenAI({ baseURL: server.url, apiKey: 'none' }).chat.completions.create({ model: server.modelId, messages });
 */
export async function startHfPolicyServer(options: HfPolicyServerOptions): Promise<PolicyServer<HfServedModel>> {
  const served = new HfServedModel(options);
  const routeOptions = {
    served,
    aliases: options.aliases ?? [],
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    now: options.now ?? Date.now,
  };
  const completion = new HfChatCompletion(routeOptions);
  const textCompletion = new HfTextCompletion(routeOptions);
  const detail = () => {
    const { batches, requests, largestBatch, recentSizes } = served.stats;
    return { batches, requests, largestBatch, recentSizes: recentSizes.join(' ') };
  };
  return listenPolicy(options, { served, completion, textCompletion, modelId: served.modelId, detail });
}
