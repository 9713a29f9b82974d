/**
 * Issue 36: sampling with adapters. KV-cache decoding through the adapted model is the adapted
 * model: each sampled token's log-prob equals the log-prob of the whole sequence recomputed with
 * adapters in one pass (sequenceLogProbs), and differs from what the base model gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import { generate } from '../../../policy/hf/generate.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora, type LoraCausalLm } from '../../../policy/hf/lora/attach-lora.ts';
import { loadPeftAdapter } from '../../../policy/hf/lora/load-peft-adapter.ts';
import { sequenceLogProbs } from '../../../policy/hf/sequence-log-probs.ts';
import { modelDir } from './fixtures.ts';
import { loraDir } from './lora-fixtures.ts';

describe('generation with a LoRA adapter (qwen2-tiny-r4, wasm)', () => {
  let lora: LoraCausalLm;
  beforeAll(async () => {
    await selectBackend('wasm');
    const base = (await loadHfModel(modelDir('qwen2-tiny'))).model;
    lora = attachLora(base, (await loadPeftAdapter(loraDir('qwen2-tiny-r4'), base.config)).adapters);
  });
  afterAll(() => lora.dispose());

  it('KV-cache log-probs equal a full recomputation with adapters, not the base model\'s', async () => {
    const prompts = [[5, 17, 200], [9, 8, 7, 6, 5, 4], [42]];
    const out = await generate(lora.withAdapters, prompts.map((prompt, i) => ({ prompt, seed: 31 + i })), { maxNewTokens: 12, temperature: 1, topP: 1 });
    const full = prompts.map((p, i) => [...p, ...out[i]!.tokens]);
    const adapted = await sequenceLogProbs(lora.withAdapters, full);
    const plain = await sequenceLogProbs(lora.withoutAdapters, full);
    let largestGap = 0;
    for (const [i, p] of prompts.entries()) {
      const cached = out[i]!.logProbs;
      const recomputed = adapted[i]!.slice(p.length - 1);
      cached.forEach((lp, t) => expect(Math.abs(lp - recomputed[t]!)).toBeLessThanOrEqual(1e-4));
      plain[i]!.slice(p.length - 1).forEach((lp, t) => (largestGap = Math.max(largestGap, Math.abs(lp - cached[t]!))));
    }
    expect(largestGap).toBeGreaterThan(0.1);
  });
});
