/**
 * TF.js side of the HF training benchmark: tokens/s of one training step (forward, backward,
 * Adam) with loss = mean next-token NLL of a fixed batch, for LoRA (rank 8, alpha 16, all seven
 * projections; only the adapters are variables) and full fine-tuning (every weight a variable).
 * The loss goes through the learner's own scoring (policy/hf/train `hfSequenceScores`: chunked
 * output head, block-wise attention, explicit transposes in the weight gradients), so the number
 * is what `train`/`sft --policy hf:DIR` get. The PyTorch side (scripts/hf/torch-speed-bench.py)
 * computes the same loss with labels = ids.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfCausalLm } from '../policy/hf/causal-lm.ts';
import { attachLora, initLoraAdapters, loraConfig } from '../policy/hf/lora/index.ts';
import { mulberry32 } from '../policy/rng.ts';
import { hfSequenceScores, trainableWeights } from '../policy/hf/train/index.ts';

export type TrainMode = 'lora' | 'full';

/** `rows` random sequences of `length` ids in [3, vocab), fixed by `seed`. */
export function randomIds(rows: number, length: number, vocab: number, seed: number): number[][] {
  const rng = mulberry32(seed);
  return Array.from({ length: rows }, () => Array.from({ length }, () => 3 + Math.floor(rng.next() * (vocab - 3))));
}

/** Mean NLL of ids[t + 1] given ids[0..t] over every row (what transformers' labels=ids computes), through the learner's scoring. */
export function nextTokenLoss(model: HfCausalLm, ids: readonly (readonly number[])[]): tf.Scalar {
  return tf.tidy(() => {
    const B = ids.length;
    const T = ids[0]!.length;
    const { logProbs } = hfSequenceScores(model, tf.tensor2d(ids.flat(), [B, T], 'int32'), { temperature: 1 });
    // Position 0 has no predecessor (0 there); the mean runs over the T − 1 predicted tokens.
    return tf.neg(tf.div(tf.sum(logProbs), B * (T - 1))) as tf.Scalar;
  });
}

/** Median seconds of `repeats` Adam steps after one warm-up step. */
async function stepSeconds(loss: () => tf.Scalar, variables: tf.Variable[], repeats: number): Promise<number> {
  const optimizer = tf.train.adam(1e-4);
  const times: number[] = [];
  try {
    for (let i = 0; i <= repeats; i++) {
      const start = performance.now();
      const value = optimizer.minimize(loss, true, variables);
      await value?.data();
      value?.dispose();
      if (i > 0) times.push((performance.now() - start) / 1000);
    }
  } finally {
    optimizer.dispose();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Trained tokens/s (batch × length per step) of `mode` on `base`. */
export async function trainTokensPerSecond(base: HfCausalLm, mode: TrainMode, batch: number, length: number, repeats: number): Promise<number> {
  const ids = randomIds(batch, length, base.config.vocabSize, 4242);
  if (mode === 'lora') {
    const adapters = initLoraAdapters(base.config, loraConfig({ r: 8, alpha: 16 }), 0);
    // attachLora's dispose would free the base too: free only the adapters here.
    const lora = attachLora(base, adapters);
    try {
      return (batch * length) / (await stepSeconds(() => nextTokenLoss(lora.withAdapters, ids), lora.trainableVariables, repeats));
    } finally {
      adapters.dispose();
    }
  }
  const full = trainableWeights(base, { namePrefix: 'bench/' });
  try {
    return (batch * length) / (await stepSeconds(() => nextTokenLoss(full.model, ids), [...full.variables.values()], repeats));
  } finally {
    full.dispose();
  }
}
