/**
 * TF.js side of the HF decoding benchmark: batched KV-cache decode tokens/s with greedy
 * generate(), the prefill subtracted as bench/hf-forward.ts does: decode time =
 * generate(new + 1) − generate(1) on the same prompts, so only the `new` cached steps count.
 */
import type { HfCausalLm } from '../policy/hf/causal-lm.ts';
import { generate } from '../policy/hf/generate.ts';
import { randomIds } from './hf-train-step.ts';

/** Median seconds of `fn` over `repeats` runs after one warm-up. */
export async function medianSeconds(fn: () => Promise<unknown>, repeats: number): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await fn();
    times.push((performance.now() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export interface DecodeRow {
  readonly batch: number;
  readonly decodeTokensPerSecond: number;
}

export async function decodeTokensPerSecond(model: HfCausalLm, batch: number, prompt: number, newTokens: number, repeats: number): Promise<DecodeRow> {
  const requests = randomIds(batch, prompt, model.config.vocabSize, 1000 + batch).map((ids, seed) => ({ prompt: ids, seed }));
  const run = (n: number) => () => generate(model, requests, { maxNewTokens: n, temperature: 0, topP: 1 });
  const first = await medianSeconds(run(1), repeats);
  const full = await medianSeconds(run(newTokens + 1), repeats);
  return { batch, decodeTokensPerSecond: (batch * newTokens) / Math.max(full - first, 1e-9) };
}
