/**
 * Causal multi-head self-attention for the training forward pass (all positions at once).
 * Incremental decoding has its own path (prefill.ts, decode-batch.ts) over the same weights.
 */
import * as tf from '@tensorflow/tfjs-core';
import { headDim, type TransformerConfig } from './config.ts';
import { param, type TransformerParams } from './params.ts';
import { attentionCore } from './ops/attention-core.ts';
import { linear } from './ops/linear.ts';

/** Large enough to zero a softmax term, small enough to keep float32 sums finite. */
export const NEG_INF = -1e9;

/** Additive mask [T, T]: 0 where key ≤ query, NEG_INF above the diagonal. */
export function causalMask(t: number): tf.Tensor2D {
  const m = new Float32Array(t * t);
  for (let q = 0; q < t; q++) for (let k = q + 1; k < t; k++) m[q * t + k] = NEG_INF;
  return tf.tensor2d(m, [t, t]);
}

/** `x` [B·T, d] (already layer-normed) → attention output [B·T, d], before the residual add. */
export function causalSelfAttention(
  x: tf.Tensor2D, batch: number, time: number, layer: number, p: TransformerParams, c: TransformerConfig, mask: tf.Tensor2D,
): tf.Tensor2D {
  const qkv = linear(x, param(p, `h${layer}.attn.qkv.w`), param(p, `h${layer}.attn.qkv.b`));
  const merged = attentionCore(qkv, { batch, time, heads: c.nHeads, headDim: headDim(c) }, mask);
  return linear(merged, param(p, `h${layer}.attn.out.w`), param(p, `h${layer}.attn.out.b`));
}
