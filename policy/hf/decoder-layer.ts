/** One pre-norm decoder layer: x + attn(norm(x)), then h + mlp(norm(h)). */
import * as tf from '@tensorflow/tfjs-core';

import { selfAttention, type AttentionInput, type AttentionWeights, type KvPair } from './attention.ts';
import type { HfModelConfig } from './config.ts';
import { swigluMlp, type MlpWeights } from './mlp.ts';
import { rmsNorm } from './rms-norm.ts';
import { tidyResult } from './tidy.ts';

export interface DecoderLayerWeights {
  readonly inputNorm: tf.Tensor1D;
  readonly attention: AttentionWeights;
  readonly postAttentionNorm: tf.Tensor1D;
  readonly mlp: MlpWeights;
}

type Shape = Pick<HfModelConfig, 'numHeads' | 'numKvHeads' | 'headDim' | 'rmsNormEps'>;

export function decoderLayer(w: DecoderLayerWeights, config: Shape, input: AttentionInput): { out: tf.Tensor3D; kv: KvPair } {
  return tidyResult(() => {
    const x = input.x;
    const [B, T, H] = x.shape;
    const attended = selfAttention(w.attention, config, { ...input, x: rmsNorm(x, w.inputNorm, config.rmsNormEps) });
    const h = tf.add(x, attended.out);
    const normed = tf.reshape(rmsNorm(h, w.postAttentionNorm, config.rmsNormEps), [B * T, H]) as tf.Tensor2D;
    const out = tf.add(h, tf.reshape(swigluMlp(normed, w.mlp), [B, T, H])) as tf.Tensor3D;
    return { out, kv: attended.kv };
  });
}
