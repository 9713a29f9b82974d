/**
 * Hugging Face causal LMs (Qwen2/Qwen2.5, Qwen3, Llama 3.x) on TF.js: read a model folder
 * (config.json + safetensors), estimate and check its memory, run the forward pass, decode in
 * batches with a KV cache, score sequences, train and export LoRA adapters (./lora/). See each
 * file for the details it owns.
 */
export { HfCausalLm, type CausalLmWeights, type ForwardBatch, type ForwardResult } from './causal-lm.ts';
export { HF_ARCHITECTURES, parseHfConfig, readHfConfig, type HfArchitecture, type HfModelConfig, type RopeScaling } from './config.ts';
export { generate, type Generation, type GenerationOptions, type GenerationRequest } from './generate.ts';
export { HfModelError, type HfErrorCode } from './hf-error.ts';
export { KvCache } from './kv-cache.ts';
export { leftPad } from './left-pad.ts';
export {
  ADAPTER_CONFIG_FILE,
  ADAPTER_WEIGHTS_FILE,
  attachLora,
  exportPeftAdapter,
  initLoraAdapters,
  LORA_TARGET_MODULES,
  LoraAdapters,
  LoraCausalLm,
  loraConfig,
  LoraError,
  loadPeftAdapter,
  type ExportPeftOptions,
  type LoadedPeftAdapter,
  type LoraConfig,
  type LoraErrorCode,
  type LoraOptions,
  type LoraTargetModule,
} from './lora/index.ts';
export type { LinearWeights, LoraWeights } from './linear.ts';
export { loadHfModel, type LoadedHfModel, type LoadOptions } from './load-hf-model.ts';
export {
  assertFits,
  BACKEND_MEMORY_LIMITS,
  countParameters,
  describeEstimate,
  estimateMemory,
  type MemoryEstimate,
  type MemoryRequest,
} from './memory-estimate.ts';
export { SafetensorsFile } from './safetensors/safetensors-file.ts';
export { WeightFiles } from './safetensors/weight-files.ts';
export { encodeSafetensors, writeSafetensors, type Float32Tensor } from './safetensors/write-safetensors.ts';
export { sequenceLogProbs } from './sequence-log-probs.ts';
