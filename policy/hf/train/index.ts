/**
 * Training Hugging Face causal LMs (issue 36, item 5): the learner's differentiable sequence
 * scores with a chunked output head and optional per-layer recomputation (so 2–4k-token
 * sequences fit), a value head for PPO, and full fine-tuning over variables named by their
 * transformers tensor names.
 */
export { chunkedCausalAttention } from './chunked-attention.ts';
export { chunkedTokenScores, type ChunkedScoreOptions } from './chunked-token-scores.ts';
export { checkpointedLayer, plainLayer } from './checkpointed-layer.ts';
export { embedTokens } from './embed-tokens.ts';
export { normedHiddenStates, type Recompute } from './hidden-states.ts';
export { isolatedGradients } from './isolated-gradients.ts';
export { mapModelWeights, type WeightMapper } from './model-weights.ts';
export { DEFAULT_ATTENTION_BLOCK, DEFAULT_POSITION_CHUNK, hfSequenceScores, type HfScoreOptions } from './sequence-scores.ts';
export { assignWeights, snapshotWeights, trainableWeights, type TrainableHfModel, type TrainableOptions } from './trainable-weights.ts';
export { trainingLayer, type LayerShape } from './training-layer.ts';
export { trainingLinear, trainingMlp } from './training-linear.ts';
export { weightMatMul } from './weight-matmul.ts';
export { createValueHead, valuesOf, type ValueHead } from './value-head.ts';
