// Issue 37: full fine-tuning under asynchronous training holds two more copies of the weights (the
// agent's version and a published one waiting to be applied); a run whose estimate cannot fit the
// backend's heap is refused before it trains, naming what to do instead.
import { describe, expect, it } from 'vitest';
import { AGENT_COPIES, assertAgentCopyFits, fullFineTuningBytes } from '../../../learner/hf/hf-agent-copy-memory.ts';
import { parseHfConfig, readHfConfig } from '../../../policy/hf/config.ts';
import { estimateMemory, GIB } from '../../../policy/hf/memory-estimate.ts';
import { modelDir } from '../../policy/hf/fixtures.ts';

/** Qwen2.5-0.5B's published config.json. */
const QWEN25_05B = parseHfConfig({
  architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 896, intermediate_size: 4864, max_position_embeddings: 32768,
  model_type: 'qwen2', num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6,
  rope_theta: 1000000.0, sliding_window: 32768, tie_word_embeddings: true, use_sliding_window: false, vocab_size: 151936,
});
const REQUEST = { batch: 1, context: 2048 };

describe('memory of the agent\'s own weights (full fine-tuning, asynchronous)', () => {
  it('costs two copies of the weights more than synchronous full fine-tuning', () => {
    const e = estimateMemory(QWEN25_05B, REQUEST);
    expect(AGENT_COPIES).toBe(2);
    expect(fullFineTuningBytes(e, true) - fullFineTuningBytes(e, false)).toBe(2 * e.parameterBytes);
    expect((2 * e.parameterBytes) / GIB).toBeCloseTo(3.68, 2);
  });

  it('refuses Qwen2.5-0.5B on the wasm heap, naming the alternatives; no limit on cpu', () => {
    const e = estimateMemory(QWEN25_05B, REQUEST);
    expect(() => assertAgentCopyFits(e, 'wasm', 'Qwen2.5-0.5B')).toThrow(/asynchronous full fine-tuning of Qwen2\.5-0\.5B \(494\.0M parameters\) needs about 13\.40 GiB.*4\.00 GiB heap.*--finetune lora.*--max-staleness 0/);
    expect(() => assertAgentCopyFits(e, 'cpu', 'Qwen2.5-0.5B')).not.toThrow();
  });

  it('lets the tiny fixture through on wasm', async () => {
    const config = await readHfConfig(modelDir('qwen2-tiny-chat'));
    expect(() => assertAgentCopyFits(estimateMemory(config, REQUEST), 'wasm', 'qwen2-tiny-chat')).not.toThrow();
  });
});
