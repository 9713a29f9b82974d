/**
 * The final-normed hidden states [B, T, hidden] of whole sequences for training: positions
 * 0..T−1 in every row and a causal mask without padding, since the learner pads rows on the
 * right and right padding only affects itself under the causal mask. Attention runs in blocks of
 * `attentionBlock` query positions (chunked-attention.ts).
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfCausalLm } from '../causal-lm.ts';
import { rmsNorm } from '../rms-norm.ts';
import { ropeInverseFrequencies, ropeTables } from '../rope.ts';
import { checkpointedLayer, plainLayer } from './checkpointed-layer.ts';
import { embedTokens } from './embed-tokens.ts';

export type Recompute = 'none' | 'layers';

/** `tokens` int32 [B, T]. Differentiable w.r.t. the model's trainable variables. */
export function normedHiddenStates(model: HfCausalLm, tokens: tf.Tensor2D, recompute: Recompute, attentionBlock: number): tf.Tensor3D {
  return tf.tidy(() => {
    const [B, T] = tokens.shape;
    const { config, weights } = model;
    const positions = Int32Array.from({ length: T }, (_, t) => t);
    // One row of tables, broadcast over the batch.
    const rope = ropeTables(ropeInverseFrequencies(config), positions, 1, T);
    let x = tf.reshape(embedTokens(weights, tf.reshape(tokens, [B * T]) as tf.Tensor1D), [B, T, config.hiddenSize]) as tf.Tensor3D;
    for (const layer of weights.layers) {
      const step = recompute === 'layers' ? checkpointedLayer : plainLayer;
      x = step(layer, config, x, rope, attentionBlock);
    }
    return rmsNorm(x, weights.finalNorm, config.rmsNormEps);
  });
}
