/**
 * Grouped-query self-attention of Llama/Qwen2/Qwen3 with an optional KV cache.
 *
 * Query heads are grouped by the key/value head they share (head h uses kv head h / group, as
 * transformers' repeat_kv does), so the keys and values are never copied per query head: the
 * products run on [B·kvHeads, group·T, headDim] blocks. Keys are transposed explicitly before
 * the product (a transpose flag is the slow path on the WebAssembly backend).
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfModelConfig } from './config.ts';
import { linear, type LinearWeights } from './linear.ts';
import { rmsNorm } from './rms-norm.ts';
import { applyRope, type RopeTables } from './rope.ts';
import { tidyResult } from './tidy.ts';

export interface AttentionWeights {
  readonly q: LinearWeights;
  readonly k: LinearWeights;
  readonly v: LinearWeights;
  readonly o: LinearWeights;
  /** Qwen3: RMSNorm weights over head_dim for q and k. */
  readonly qNorm?: tf.Tensor1D;
  readonly kNorm?: tf.Tensor1D;
}

/** One layer's cached keys and values, [B, kvHeads, S, headDim], after RoPE. */
export interface KvPair {
  readonly k: tf.Tensor4D;
  readonly v: tf.Tensor4D;
}

export interface AttentionInput {
  /** [B, T, hidden]. */
  readonly x: tf.Tensor3D;
  readonly rope: RopeTables;
  /** Additive mask [B, 1, T, S]: 0 where a query may look, a large negative number elsewhere. */
  readonly mask: tf.Tensor4D;
  /** Keys and values of the S − T earlier columns. */
  readonly past?: KvPair;
}

type Shape = Pick<HfModelConfig, 'numHeads' | 'numKvHeads' | 'headDim' | 'rmsNormEps'>;

/** Returns the attention output [B, T, hidden] and the keys/values of all S columns. */
export function selfAttention(w: AttentionWeights, config: Shape, input: AttentionInput): { out: tf.Tensor3D; kv: KvPair } {
  return tidyResult(() => {
    const { numHeads, numKvHeads, headDim } = config;
    const group = numHeads / numKvHeads;
    const [B, T, H] = input.x.shape;
    const x = tf.reshape(input.x, [B * T, H]) as tf.Tensor2D;
    const heads = (proj: LinearWeights, n: number, norm?: tf.Tensor1D): tf.Tensor4D => {
      let h = tf.reshape(linear(x, proj), [B, T, n, headDim]) as tf.Tensor4D;
      if (norm !== undefined) h = rmsNorm(h, norm, config.rmsNormEps);
      return applyRope(tf.transpose(h, [0, 2, 1, 3]), input.rope);
    };
    const q = heads(w.q, numHeads, w.qNorm);
    const kNew = heads(w.k, numKvHeads, w.kNorm);
    const vNew = tf.transpose(tf.reshape(linear(x, w.v), [B, T, numKvHeads, headDim]), [0, 2, 1, 3]) as tf.Tensor4D;
    const k = input.past === undefined ? kNew : tf.concat([input.past.k, kNew], 2);
    const v = input.past === undefined ? vNew : tf.concat([input.past.v, vNew], 2);
    const S = k.shape[2];

    const qg = tf.reshape(q, [B * numKvHeads, group * T, headDim]) as tf.Tensor3D;
    const kT = tf.transpose(tf.reshape(k, [B * numKvHeads, S, headDim]), [0, 2, 1]) as tf.Tensor3D;
    const scores = tf.mul(tf.matMul(qg, kT), 1 / Math.sqrt(headDim));
    const masked = tf.add(tf.reshape(scores, [B, numHeads, T, S]), input.mask);
    const probs = tf.reshape(tf.softmax(masked), [B * numKvHeads, group * T, S]) as tf.Tensor3D;
    const context = tf.matMul(probs, tf.reshape(v, [B * numKvHeads, S, headDim]) as tf.Tensor3D);
    const merged = tf.reshape(tf.transpose(tf.reshape(context, [B, numHeads, T, headDim]), [0, 2, 1, 3]), [B * T, numHeads * headDim]);
    const out = tf.reshape(linear(merged as tf.Tensor2D, w.o), [B, T, H]) as tf.Tensor3D;
    return { out, kv: { k, v } };
  });
}
