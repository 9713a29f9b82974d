/**
 * What picks actions: the tokenizer, the tfjs transformer (training forward, sequence scoring,
 * KV-cache decoding), sampling and constrained decoding, backend selection, and the policies.
 */
export type { ActRequest, Decision, Policy, TokenTrajectory } from './policy.ts';
export { selectBackend, BACKEND_PREFERENCES, type BackendPreference } from './backend.ts';
export { Tokenizer, type TokenizerJSON, type FromCorpusOptions, type EncodeOptions } from './tokenizer.ts';
export {
  SPECIAL_TOKENS, PAD_ID, BOS_ID, ACT_ID, END_ACT_ID, OBS_ID, UNK_ID, NUM_SPECIAL, isSpecialId, type SpecialToken,
} from './special-tokens.ts';
export { mulberry32, mixSeed, turnRng, type Rng } from './rng.ts';
export { sampleToken, type SamplingOptions, type SampledToken } from './sampling.ts';
export { ActionTrie, FreeFormDecoder, type ActionDecoder } from './action-trie.ts';
export { EpisodeContext, type WindowOptions, type WindowedTrajectory } from './context-window.ts';
export { TransformerPolicy, type TransformerPolicyOptions } from './transformer-policy.ts';
export { RandomPolicy, type RandomPolicyOptions } from './random-policy.ts';
export { OraclePolicy } from './oracle-policy.ts';
export { Transformer } from './transformer/transformer.ts';
export { DEFAULT_TRANSFORMER_CONFIG, makeConfig, validateConfig, type TransformerConfig } from './transformer/config.ts';
export { paramShapes, type TransformerParams } from './transformer/params.ts';
export type { ForwardOutput } from './transformer/forward.ts';
export type { SequenceScores, LogProbsOptions } from './transformer/log-probs.ts';
export type { SequenceCache, LayerCache } from './transformer/kv-cache.ts';
export { disposeCache } from './transformer/kv-cache.ts';
export type { DecodeBatch } from './transformer/decode-batch.ts';
export type { PrefillResult } from './transformer/prefill.ts';
export { encodeWeights, decodeWeights } from './transformer/weights-io.ts';
