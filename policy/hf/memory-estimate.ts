/**
 * How much memory a model takes before it is loaded, and a refusal when it cannot fit.
 *
 * Weights are held in float32 whatever the file's dtype (parameters × 4 bytes; tied embeddings
 * are stored once). The KV cache holds keys and values of every layer for batch × context
 * tokens: 2 × layers × kvHeads × headDim × 4 bytes a token. Activations are the largest
 * temporaries of one prefill of batch × context tokens: the MLP's three [tokens, intermediate]
 * products, a layer's attention scores and probabilities, and the last position's logits; a
 * rough bound, not an exact count.
 *
 * The WebAssembly backend's heap is at most 4 GiB (32-bit addressing). What fits there in
 * float32 (estimates printed by this module for the published configs): Qwen2.5-0.5B (494.0M
 * parameters, 1.84 GiB of weights; 2.35 GiB at batch 1 × 2,048 tokens, 3.74 GiB at 4,096) and
 * Qwen3-0.6B (596.0M, 2.22 GiB; 3.19 GiB at batch 1 × 2,048, too much at 4,096 because its KV
 * cache takes 224 KiB a token). Not Qwen2.5-1.5B (5.75 GiB of weights alone), Llama-3.2-1B
 * (4.60 GiB) or anything larger: those need the tensorflow backend (@tensorflow/tfjs-node).
 */
import { HfModelError } from './hf-error.ts';
import type { HfModelConfig } from './config.ts';
import { expectedTensors } from './tensor-names.ts';

export interface MemoryRequest {
  /** Sequences decoded together. */
  readonly batch: number;
  /** Tokens per sequence (prompt + generation). */
  readonly context: number;
}

export interface MemoryEstimate {
  readonly parameters: number;
  readonly parameterBytes: number;
  readonly kvCacheBytes: number;
  readonly activationBytes: number;
  readonly totalBytes: number;
}

const FLOAT32 = 4;
export const GIB = 1024 ** 3;

/** Heap limits of backends that have one; others (cpu, tensorflow) are bounded by the machine. */
export const BACKEND_MEMORY_LIMITS: Readonly<Record<string, number>> = { wasm: 4 * GIB };

export function countParameters(config: HfModelConfig): number {
  return expectedTensors(config).reduce((n, t) => n + t.shape.reduce((a, b) => a * b, 1), 0);
}

export function estimateMemory(config: HfModelConfig, request: MemoryRequest): MemoryEstimate {
  const parameters = countParameters(config);
  const tokens = request.batch * request.context;
  const kvCacheBytes = 2 * config.numLayers * config.numKvHeads * config.headDim * tokens * FLOAT32;
  const mlp = 3 * tokens * config.intermediateSize;
  const scores = 2 * request.batch * config.numHeads * request.context * request.context;
  const activationBytes = (Math.max(mlp, scores) + 4 * tokens * config.hiddenSize + request.batch * config.vocabSize) * FLOAT32;
  const parameterBytes = parameters * FLOAT32;
  return { parameters, parameterBytes, kvCacheBytes, activationBytes, totalBytes: parameterBytes + kvCacheBytes + activationBytes };
}

const gib = (bytes: number): string => `${(bytes / GIB).toFixed(2)} GiB`;

/** A one-line account of an estimate, for logs and errors. */
export function describeEstimate(e: MemoryEstimate, request: MemoryRequest): string {
  return `${(e.parameters / 1e6).toFixed(1)}M parameters: ${gib(e.totalBytes)} (weights ${gib(e.parameterBytes)} in float32, KV cache ${gib(e.kvCacheBytes)} for batch ${request.batch} × ${request.context} tokens, activations about ${gib(e.activationBytes)})`;
}

/** Throws HF_OUT_OF_MEMORY when the estimate exceeds the backend's heap. */
export function assertFits(e: MemoryEstimate, request: MemoryRequest, backend: string, file = 'config.json'): void {
  const limit = BACKEND_MEMORY_LIMITS[backend];
  if (limit === undefined || e.totalBytes <= limit) return;
  throw new HfModelError(
    'HF_OUT_OF_MEMORY',
    file,
    'model size',
    `${describeEstimate(e, request)} does not fit the ${backend} backend's ${gib(limit)} heap. ` +
      'In float32 that heap holds Qwen2.5-0.5B (2.35 GiB at batch 1 × 2,048 tokens) or Qwen3-0.6B (3.19 GiB at batch 1 × 2,048), ' +
      'not Qwen2.5-1.5B or Llama-3.2-1B: use a smaller model, batch or context, or the tensorflow backend (@tensorflow/tfjs-node).',
  );
}
