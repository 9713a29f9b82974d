/**
 * Batched decoding with a KV cache: one left-padded prefill of every prompt, then one token at
 * a time for every live sequence; a sequence stops at a stop id (kept in its output) or after
 * `maxNewTokens`, and leaves the batch. Each sequence samples with its own seeded generator, so
 * its tokens do not depend on which other sequences share the batch. Per-token log-probs follow
 * policy/sampling.ts: log softmax(logits / temperature) over the full vocabulary (temperature 1
 * when greedy).
 */
import * as tf from '@tensorflow/tfjs-core';

import { mulberry32, type Rng } from '../rng.ts';
import { sampleToken, type SamplingOptions } from '../sampling.ts';
import type { HfCausalLm } from './causal-lm.ts';
import { KvCache } from './kv-cache.ts';
import { leftPad } from './left-pad.ts';

export interface GenerationRequest {
  readonly prompt: readonly number[];
  /** Seeds this sequence's sampler. */
  readonly seed: number;
}

export interface GenerationOptions extends SamplingOptions {
  readonly maxNewTokens: number;
  /** Ids that end a sequence (e.g. EOS); the stop id is part of the output. */
  readonly stopIds?: readonly number[];
  /** Token id used for left padding (never attended to). */
  readonly padId?: number;
}

export interface Generation {
  readonly tokens: number[];
  readonly logProbs: number[];
  readonly finish: 'stop' | 'length';
}

export async function generate(model: HfCausalLm, requests: readonly GenerationRequest[], options: GenerationOptions): Promise<Generation[]> {
  if (!(options.maxNewTokens >= 1)) throw new Error(`maxNewTokens must be ≥ 1, got ${options.maxNewTokens}`);
  const longest = Math.max(0, ...requests.map((r) => r.prompt.length));
  if (longest + options.maxNewTokens > model.config.maxPositionEmbeddings) {
    throw new Error(`generate: prompt of ${longest} tokens + ${options.maxNewTokens} new exceeds max_position_embeddings ${model.config.maxPositionEmbeddings}`);
  }
  if (requests.length === 0) return [];
  const stop = new Set(options.stopIds ?? []);
  const out = requests.map(() => ({ tokens: [] as number[], logProbs: [] as number[], finish: 'length' as Generation['finish'] }));
  const rngs: Rng[] = requests.map((r) => mulberry32(r.seed));
  /** live[i] = index into `requests` of cache row i. */
  let live = requests.map((_, i) => i);

  const prefill = leftPad(requests.map((r) => r.prompt), options.padId ?? 0);
  const first = model.forward(prefill, undefined, 'last');
  const cache = KvCache.afterPrefill(prefill, first.kv);
  let logits = first.logits;
  try {
    for (let step = 0; ; step++) {
      const vocab = logits.shape[2];
      const values = (await logits.data()) as Float32Array;
      logits.dispose();
      const next: number[] = [];
      const keep: number[] = [];
      for (const [row, request] of live.entries()) {
        const sampled = sampleToken(values.subarray(row * vocab, (row + 1) * vocab), rngs[request]!, options);
        const o = out[request]!;
        o.tokens.push(sampled.token);
        o.logProbs.push(sampled.logProb);
        if (stop.has(sampled.token)) {
          o.finish = 'stop';
        } else if (o.tokens.length < options.maxNewTokens) {
          keep.push(row);
          next.push(sampled.token);
        }
      }
      if (keep.length === 0) break;
      cache.keepRows(keep);
      live = keep.map((row) => live[row]!);
      const batch = cache.nextStep(next);
      const result = model.forward(batch, cache.past, 'last');
      cache.advance(batch, result.kv);
      logits = result.logits;
    }
  } finally {
    if (!logits.isDisposed) logits.dispose();
    cache.dispose();
  }
  return out;
}
