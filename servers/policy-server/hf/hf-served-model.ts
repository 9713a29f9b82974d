/**
 * A Hugging Face causal LM behind the chat endpoint: a request's messages in, a generated reply
 * out, with its token ids and per-token log-probs. Requests arriving together are decoded in one
 * batch (../request-batcher.ts, run-generation-batch.ts); each samples with its own generator seeded
 * by the request's `seed` (absent: a fresh random seed), so the same seed gives the same reply
 * whichever requests share its batch. Nothing is kept between requests: a conversation is
 * rendered and prefilled whole each time.
 */
import { randomInt } from 'node:crypto';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import type { HfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { ApiError } from '../api-error.ts';
import { DEFAULT_HF_MAX_BATCH, DEFAULT_HF_MAX_QUEUE, DEFAULT_HF_MAX_TOKENS } from './hf-defaults.ts';
import type { HfChatRequest } from './hf-request-schema.ts';
import { prepareFromIds, prepareGeneration, type GenerationDefaults, type PreparedGeneration } from './prepare-generation.ts';
import type { HfTextRequest } from './hf-text-request-schema.ts';
import { replyText, type ReplyText } from './reply-text.ts';
import { RequestBatcher, type BatchStats } from '../request-batcher.ts';
import { runGenerationBatch } from './run-generation-batch.ts';
import type { Generation } from '../../../policy/hf/generate.ts';


export interface HfServedModelOptions {
  /** The model to decode with (a LoRA model's `withAdapters`). */
  readonly model: HfCausalLm;
  /** Its tokenizer, chat template and stop ids (`loadHfTokenizer`). */
  readonly tokenizer: HfTokenizer;
  /** The name the server answers to and every reply names, `hf:<folder name>`. */
  readonly modelId: string;
  /** Default 256, lowered to what the context leaves. */
  readonly defaultMaxTokens?: number;
  /** A larger request `max_tokens` is lowered to this (default none: only the model's context bounds it). */
  readonly maxTokensCap?: number;
  /** Temperature of a request that sends none (default 1, as OpenAI's). */
  readonly temperature?: number;
  /** top_p of a request that sends none (default 1). */
  readonly topP?: number;
  /** Requests decoded in one batch at most (default 16). */
  readonly maxBatch?: number;
  /** Requests waiting at most (default 256; beyond, 503 server_busy). */
  readonly maxQueue?: number;
  /** The seed of a request that sends none (default a random 32-bit integer). */
  readonly randomSeed?: () => number;
}

/** A reply, with the prompt's ids. */
export interface ServedGeneration extends ReplyText {
  readonly promptIds: readonly number[];
}

export class HfServedModel {
  readonly #batcher: RequestBatcher<PreparedGeneration, Generation>;
  readonly #defaults: GenerationDefaults;
  #generateCalls: number[] = [];
  #closed = false;

  constructor(readonly options: HfServedModelOptions) {
    const { model, tokenizer } = options;
    this.#defaults = {
      defaultMaxTokens: options.defaultMaxTokens ?? DEFAULT_HF_MAX_TOKENS,
      ...(options.maxTokensCap !== undefined ? { maxTokensCap: options.maxTokensCap } : {}),
      temperature: options.temperature ?? 1,
      topP: options.topP ?? 1,
      randomSeed: options.randomSeed ?? (() => randomInt(0, 2 ** 32)),
    };
    for (const name of ['defaultMaxTokens', 'maxTokensCap'] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isInteger(value) && value >= 1)) throw new Error(`${name} must be a positive integer, got ${value}`);
    }
    const padId = tokenizer.tokenToId(tokenizer.specialTokens.pad_token ?? '') ?? 0;
    this.#batcher = new RequestBatcher(
      (batch) => runGenerationBatch(model, batch, { stopIds: tokenizer.stopIds, padId, onGenerate: (size) => this.#generateCalls.push(size) }),
      { maxBatch: options.maxBatch ?? DEFAULT_HF_MAX_BATCH, maxQueue: options.maxQueue ?? DEFAULT_HF_MAX_QUEUE },
    );
  }

  get modelId(): string {
    return this.options.modelId;
  }

  /** The model's context: prompt + max_tokens may not pass it (config.json max_position_embeddings). */
  get context(): number {
    return this.options.model.config.maxPositionEmbeddings;
  }

  /** Batches gathered so far; `generateCalls` are the sizes of the `generate` calls they made (last 64). */
  get stats(): BatchStats & { readonly generateCalls: readonly number[] } {
    return { ...this.#batcher.stats, generateCalls: this.#generateCalls.slice(-64) };
  }

  /** Renders and checks `request` (a 400 ApiError when it cannot be served) without queueing it. */
  prepare(request: HfChatRequest): PreparedGeneration {
    return prepareGeneration(request, this.options.tokenizer, this.context, this.#defaults);
  }

  /**
   * Checks a `/v1/completions` prompt (ids within the vocabulary; text encoded as the tokenizer
   * does with its special tokens, as vLLM does) and sizes it, without queueing it.
   */
  prepareText(request: HfTextRequest): PreparedGeneration {
    const { tokenizer } = this.options;
    const ids = 'ids' in request.prompt ? request.prompt.ids : tokenizer.encode(request.prompt.text, { addSpecialTokens: true });
    const bad = ids.findIndex((id) => id >= this.options.model.config.vocabSize);
    if (bad >= 0) {
      throw new ApiError(400, 'invalid_request', `prompt[${bad}]: token id ${ids[bad]} is past the model's vocabulary of ${this.options.model.config.vocabSize} ids`, `prompt[${bad}]`);
    }
    return prepareFromIds(ids, request, this.context, this.#defaults, 'prompt');
  }

  /** Generates the reply of a prepared request, in the next batch. */
  async generate(job: PreparedGeneration, stop: readonly string[] = []): Promise<ServedGeneration> {
    if (this.#closed) throw new ApiError(503, 'server_closing', 'the server is shutting down');
    const generation = await this.#batcher.submit(job);
    return { ...replyText(generation, this.options.tokenizer, stop), promptIds: job.promptIds };
  }

  /** A token's text for log-prob entries (its UTF-8 piece; a partial character decodes to U+FFFD). */
  tokenText(id: number): string {
    return this.options.tokenizer.decode([id]);
  }

  /** Refuses further requests (the model itself is not disposed: its owner frees it). */
  close(): void {
    this.#closed = true;
    this.#batcher.close();
  }
}
