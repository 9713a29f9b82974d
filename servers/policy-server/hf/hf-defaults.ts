/**
 * The served Hugging Face model's defaults, apart from hf-served-model.ts so that
 * `actorgym serve-policy --help` can print them without loading TensorFlow.js.
 */

/** `max_tokens` of a request that sends none (lowered to what the context leaves). */
export const DEFAULT_HF_MAX_TOKENS = 256;
/** Requests decoded in one batch at most: each holds a KV cache of its prompt and reply. */
export const DEFAULT_HF_MAX_BATCH = 16;
/** Requests waiting at most; beyond, 503 server_busy. */
export const DEFAULT_HF_MAX_QUEUE = 256;
