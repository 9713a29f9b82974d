/**
 * Per-token log-probs of whole sequences in one left-padded forward pass (teacher forcing):
 * result[i][t] = log p(sequence[t + 1] | sequence[0..t]), at temperature 1.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfCausalLm } from './causal-lm.ts';
import { leftPad } from './left-pad.ts';

export async function sequenceLogProbs(model: HfCausalLm, sequences: readonly (readonly number[])[], padId = 0): Promise<number[][]> {
  const batch = leftPad(sequences, padId);
  const logProbs = tf.tidy(() => tf.logSoftmax(model.forward(batch).logits));
  const values = (await logProbs.data()) as Float32Array;
  logProbs.dispose();
  const V = model.config.vocabSize;
  return sequences.map((seq, b) => {
    const pad = batch.length - seq.length;
    const out: number[] = [];
    for (let t = 0; t + 1 < seq.length; t++) out.push(values[(b * batch.length + pad + t) * V + seq[t + 1]!]!);
    return out;
  });
}
