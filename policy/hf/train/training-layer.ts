/**
 * One decoder layer for training over whole sequences: the same computation as
 * policy/hf/decoder-layer.ts + attention.ts (pre-norm, grouped-query attention with RoPE and
 * Qwen3's q/k norms, SwiGLU MLP) with the causal attention computed block by block
 * (chunked-attention.ts), so no [heads, T, T] tensor is kept for, or built in, the backward pass,
 * and the projections through training-linear.ts (no transposed matMul in the backward pass).
 * No KV cache and no key padding (rows are right-padded; positions 0..T−1).
 */
import * as tf from '@tensorflow/tfjs-core';

import type { AttentionWeights } from '../attention.ts';
import type { HfModelConfig } from '../config.ts';
import type { DecoderLayerWeights } from '../decoder-layer.ts';
import type { LinearWeights } from '../linear.ts';
import { rmsNorm } from '../rms-norm.ts';
import { applyRope, type RopeTables } from '../rope.ts';
import { chunkedCausalAttention } from './chunked-attention.ts';
import { trainingLinear, trainingMlp } from './training-linear.ts';

export type LayerShape = Pick<HfModelConfig, 'numHeads' | 'numKvHeads' | 'headDim' | 'rmsNormEps'>;

function attention(w: AttentionWeights, config: LayerShape, x: tf.Tensor3D, rope: RopeTables, block: number): tf.Tensor3D {
  const { numHeads, numKvHeads, headDim } = config;
  const [B, T, H] = x.shape;
  const rows = tf.reshape(x, [B * T, H]) as tf.Tensor2D;
  const heads = (proj: LinearWeights, n: number, norm?: tf.Tensor1D): tf.Tensor4D => {
    let h = tf.reshape(trainingLinear(rows, proj), [B, T, n, headDim]) as tf.Tensor4D;
    if (norm !== undefined) h = rmsNorm(h, norm, config.rmsNormEps);
    return tf.transpose(h, [0, 2, 1, 3]);
  };
  const q = applyRope(heads(w.q, numHeads, w.qNorm), rope);
  const k = applyRope(heads(w.k, numKvHeads, w.kNorm), rope);
  const v = heads(w.v, numKvHeads);
  const context = chunkedCausalAttention(q, k, v, block);
  const merged = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [B * T, numHeads * headDim]) as tf.Tensor2D;
  return tf.reshape(trainingLinear(merged, w.o), [B, T, H]) as tf.Tensor3D;
}

/** x + attn(norm(x)), then h + mlp(norm(h)); `attentionBlock` query positions per attention block. */
export function trainingLayer(w: DecoderLayerWeights, config: LayerShape, x: tf.Tensor3D, rope: RopeTables, attentionBlock: number): tf.Tensor3D {
  return tf.tidy(() => {
    const [B, T, H] = x.shape;
    const h = tf.add(x, attention(w.attention, config, rmsNorm(x, w.inputNorm, config.rmsNormEps), rope, attentionBlock));
    const normed = tf.reshape(rmsNorm(h, w.postAttentionNorm, config.rmsNormEps), [B * T, H]) as tf.Tensor2D;
    return tf.add(h, tf.reshape(trainingMlp(normed, w.mlp), [B, T, H])) as tf.Tensor3D;
  });
}
