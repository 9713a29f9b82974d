/**
 * Issue 36: config.json parsing — the published layouts of Qwen2.5, Qwen3 and Llama 3.2 are read
 * (transformers 4.x `rope_theta`/`rope_scaling` and 5.x `rope_parameters` alike), anything
 * unsupported is refused naming the field, and the memory estimate says what fits the wasm heap.
 */
import { describe, expect, it } from 'vitest';

import { parseHfConfig } from '../../../policy/hf/config.ts';
import { HfModelError } from '../../../policy/hf/hf-error.ts';
import { assertFits, countParameters, estimateMemory } from '../../../policy/hf/memory-estimate.ts';
import { ropeInverseFrequencies } from '../../../policy/hf/rope.ts';

// As published (transformers 4.x layout), fields this loader does not read included.
const QWEN25_05B = {
  architectures: ['Qwen2ForCausalLM'], attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151645, hidden_act: 'silu',
  hidden_size: 896, initializer_range: 0.02, intermediate_size: 4864, max_position_embeddings: 32768, max_window_layers: 21,
  model_type: 'qwen2', num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6,
  rope_theta: 1000000.0, sliding_window: 32768, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true,
  use_sliding_window: false, vocab_size: 151936,
};
const QWEN3_06B = {
  architectures: ['Qwen3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, head_dim: 128, hidden_act: 'silu',
  hidden_size: 1024, intermediate_size: 3072, max_position_embeddings: 40960, max_window_layers: 28, model_type: 'qwen3',
  num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 8, rms_norm_eps: 1e-6, rope_scaling: null,
  rope_theta: 1000000, sliding_window: null, tie_word_embeddings: true, use_sliding_window: false, vocab_size: 151936,
};
const LLAMA32_1B = {
  architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, head_dim: 64, hidden_act: 'silu',
  hidden_size: 2048, intermediate_size: 8192, max_position_embeddings: 131072, mlp_bias: false, model_type: 'llama',
  num_attention_heads: 32, num_hidden_layers: 16, num_key_value_heads: 8, pretraining_tp: 1, rms_norm_eps: 1e-5,
  rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0, tie_word_embeddings: true, vocab_size: 128256,
};

function refusal(json: unknown): HfModelError {
  try {
    parseHfConfig(json, 'dir/config.json');
  } catch (e) {
    expect(e).toBeInstanceOf(HfModelError);
    return e as HfModelError;
  }
  throw new Error('expected a refusal');
}

describe('parseHfConfig', () => {
  it('reads the published Qwen2.5-0.5B, Qwen3-0.6B and Llama-3.2-1B configs', () => {
    const qwen2 = parseHfConfig(QWEN25_05B);
    expect(qwen2).toMatchObject({ architecture: 'qwen2', headDim: 64, numKvHeads: 2, qkvBias: true, qkNorm: false, tieWordEmbeddings: true, ropeTheta: 1e6, ropeScaling: { type: 'default' } });
    const qwen3 = parseHfConfig(QWEN3_06B);
    expect(qwen3).toMatchObject({ architecture: 'qwen3', headDim: 128, qkvBias: false, qkNorm: true });
    const llama = parseHfConfig(LLAMA32_1B);
    expect(llama.ropeScaling).toEqual({ type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 });
    // Published parameter counts.
    expect(countParameters(qwen2)).toBe(494_032_768);
    expect(countParameters(llama)).toBe(1_235_814_400);
  });

  it('reads transformers 5 rope_parameters the same as rope_theta + rope_scaling', () => {
    const { rope_scaling, rope_theta, ...rest } = LLAMA32_1B;
    const v5 = parseHfConfig({ ...rest, rope_parameters: { ...rope_scaling, rope_theta } });
    expect(v5).toEqual(parseHfConfig(LLAMA32_1B));
    // llama3 scaling divides the low frequencies and keeps the high ones.
    const scaled = ropeInverseFrequencies(v5);
    const plain = ropeInverseFrequencies({ ...v5, ropeScaling: { type: 'default' } });
    expect(scaled[0]).toBe(plain[0]);
    expect(scaled[31]! / plain[31]!).toBeCloseTo(1 / 32, 6);
  });

  it.each([
    [{ ...QWEN25_05B, model_type: 'mistral' }, 'HF_CONFIG_UNSUPPORTED', 'model_type'],
    [{ ...LLAMA32_1B, rope_scaling: { rope_type: 'yarn', factor: 4 } }, 'HF_CONFIG_UNSUPPORTED', 'rope_scaling.rope_type'],
    [{ ...QWEN3_06B, rope_parameters: { rope_type: 'dynamic', rope_theta: 1e6, factor: 2 } }, 'HF_CONFIG_UNSUPPORTED', 'rope_parameters.rope_type'],
    [{ ...LLAMA32_1B, rope_scaling: { rope_type: 'llama3', factor: 8 } }, 'HF_CONFIG_INVALID', 'rope_scaling.low_freq_factor'],
    [{ ...QWEN25_05B, use_sliding_window: true }, 'HF_CONFIG_UNSUPPORTED', 'use_sliding_window'],
    [{ ...QWEN3_06B, layer_types: ['full_attention', 'sliding_attention'] }, 'HF_CONFIG_UNSUPPORTED', 'layer_types[1]'],
    [{ ...LLAMA32_1B, attention_bias: true }, 'HF_CONFIG_UNSUPPORTED', 'attention_bias'],
    [{ ...QWEN3_06B, attention_bias: true }, 'HF_CONFIG_UNSUPPORTED', 'attention_bias'],
    [{ ...LLAMA32_1B, mlp_bias: true }, 'HF_CONFIG_UNSUPPORTED', 'mlp_bias'],
    [{ ...QWEN25_05B, hidden_act: 'gelu' }, 'HF_CONFIG_UNSUPPORTED', 'hidden_act'],
    [{ ...LLAMA32_1B, pretraining_tp: 2 }, 'HF_CONFIG_UNSUPPORTED', 'pretraining_tp'],
    [{ ...LLAMA32_1B, partial_rotary_factor: 0.5 }, 'HF_CONFIG_UNSUPPORTED', 'partial_rotary_factor'],
    [{ ...QWEN25_05B, num_key_value_heads: 3 }, 'HF_CONFIG_INVALID', 'num_key_value_heads'],
    [{ ...QWEN25_05B, hidden_size: 'big' }, 'HF_CONFIG_INVALID', 'hidden_size'],
    [{ ...QWEN25_05B, vocab_size: undefined }, 'HF_CONFIG_INVALID', 'vocab_size'],
  ])('refuses %#, naming the field', (json, code, field) => {
    const e = refusal(json);
    expect(e.code).toBe(code);
    expect(e.field).toBe(field);
    expect(e.message).toContain('dir/config.json');
    expect(e.message).toContain(field);
  });
});

describe('memory estimate', () => {
  const wasm = (json: unknown, batch: number, context: number): void => {
    const config = parseHfConfig(json);
    assertFits(estimateMemory(config, { batch, context }), { batch, context }, 'wasm');
  };

  it('fits Qwen2.5-0.5B and Qwen3-0.6B on wasm at batch 1 × 2048, refuses 1B-and-up models', () => {
    expect(() => wasm(QWEN25_05B, 1, 2048)).not.toThrow();
    expect(() => wasm(QWEN3_06B, 1, 2048)).not.toThrow();
    expect(() => wasm(QWEN3_06B, 16, 1024)).toThrow(/does not fit the wasm backend's 4\.00 GiB heap/);
    expect(() => wasm(LLAMA32_1B, 1, 2048)).toThrow(/1235\.8M parameters/);
    // No limit is known for the other backends: nothing is refused there.
    const llama = parseHfConfig(LLAMA32_1B);
    expect(() => assertFits(estimateMemory(llama, { batch: 1, context: 2048 }), { batch: 1, context: 2048 }, 'cpu')).not.toThrow();
  });

  it('counts the KV cache as 2 × layers × kv heads × head_dim × 4 bytes a token', () => {
    const e = estimateMemory(parseHfConfig(QWEN3_06B), { batch: 2, context: 100 });
    expect(e.kvCacheBytes).toBe(2 * 28 * 8 * 128 * 4 * 200);
    expect(e.parameterBytes).toBe(e.parameters * 4);
  });
});
