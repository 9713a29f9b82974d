/**
 * Serving a Hugging Face causal LM on the policy server's OpenAI-compatible endpoint (issue 36):
 * load a model folder (and adapter) for serving, and start the server.
 */
export { loadServedHf, type LoadedServedHf, type LoadServedHfOptions } from './load-served-hf-model.ts';
export { startHfPolicyServer, type HfPolicyServerOptions } from './hf-policy-server.ts';
export { DEFAULT_HF_MAX_BATCH, DEFAULT_HF_MAX_QUEUE, DEFAULT_HF_MAX_TOKENS } from './hf-defaults.ts';
export { HfServedModel, type HfServedModelOptions, type ServedGeneration } from './hf-served-model.ts';
export type { BatchStats } from '../request-batcher.ts';
export { parseHfChatBody, type HfChatRequest } from './hf-request-schema.ts';
