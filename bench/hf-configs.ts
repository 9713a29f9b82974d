/**
 * The models and workloads of bench/hf-speed.ts (issue 36, "Measure"): Qwen2-shaped models of
 * about 10M and 50M parameters and one shaped like Qwen2.5-0.5B, all with random weights, and for
 * each the training batch and the decode batches that finish on a 2-core machine in minutes.
 */
import type { FloatDtype } from '../policy/hf/safetensors/dtypes.ts';

export interface HfBenchModel {
  readonly name: string;
  /** config.json as written. */
  readonly config: Record<string, unknown>;
  /** How model.safetensors stores the weights. */
  readonly dtype: FloatDtype;
  /** One training step: batch × length tokens, loss = mean next-token NLL. */
  readonly train: { readonly batch: number; readonly length: number };
  /** Decoding: every batch size gets `prompt`-token prompts and `newTokens` greedy tokens. */
  readonly decode: { readonly batches: readonly number[]; readonly prompt: number; readonly newTokens: number };
  /** Timed repeats after one warm-up (the median is reported); 1 keeps the full set near 30 min on 2 cores. */
  readonly repeats: number;
  /** Also measure load time and peak RSS in fresh processes. */
  readonly load: boolean;
}

const QWEN2 = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', max_position_embeddings: 32768, rms_norm_eps: 1e-6,
  rope_theta: 1000000.0, tie_word_embeddings: true, hidden_act: 'silu', use_sliding_window: false, bos_token_id: 1, eos_token_id: 2,
};

export const HF_BENCH_MODELS: readonly HfBenchModel[] = [
  {
    name: 'qwen2-10m',
    config: { ...QWEN2, vocab_size: 4096, hidden_size: 256, intermediate_size: 1024, num_hidden_layers: 8, num_attention_heads: 4, num_key_value_heads: 2 },
    dtype: 'F32',
    train: { batch: 4, length: 256 },
    decode: { batches: [1, 16, 64], prompt: 16, newTokens: 32 },
    repeats: 1,
    load: false,
  },
  {
    name: 'qwen2-50m',
    config: { ...QWEN2, vocab_size: 32000, hidden_size: 512, intermediate_size: 2048, num_hidden_layers: 8, num_attention_heads: 8, num_key_value_heads: 2 },
    dtype: 'F32',
    // 2 × 128 tokens and 16 new tokens: a TF.js training step of 4 × 256 takes minutes here.
    train: { batch: 2, length: 128 },
    decode: { batches: [1, 16, 64], prompt: 16, newTokens: 16 },
    repeats: 1,
    load: false,
  },
  {
    // Qwen2.5-0.5B's config.json, weights random; BF16 like the published file.
    name: 'qwen2.5-0.5b-shaped',
    config: { ...QWEN2, vocab_size: 151936, hidden_size: 896, intermediate_size: 4864, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, bos_token_id: 151643, eos_token_id: 151643 },
    dtype: 'BF16',
    // One 64-token sequence a step and no batch 64: a TF.js LoRA step costs about a second a token here.
    train: { batch: 1, length: 64 },
    decode: { batches: [1, 16], prompt: 16, newTokens: 8 },
    repeats: 1,
    load: true,
  },
];
