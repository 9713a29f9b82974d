/**
 * Causal attention softmax(q·kᵀ·scale + causal) · v over blocks of query positions, with a custom
 * gradient that recomputes each block's probabilities in the backward pass (the idea of
 * FlashAttention, in TF.js ops). The [heads, T, T] scores and probabilities never exist at once:
 * a block holds [B·kvHeads, group·block, S] where S is the block's last position + 1 (the
 * columns after it are masked anyway, so they are skipped). No key padding: training rows are
 * right-padded, and padding only affects itself under the causal mask.
 *
 * Query heads are grouped by the key/value head they share, as policy/hf/attention.ts does, so
 * keys and values are never copied per query head. Products use explicit transposes.
 */
import * as tf from '@tensorflow/tfjs-core';

import { tidyResult } from '../tidy.ts';

/** Added to masked scores: exp() of it is exactly 0 in float32 (the model's own constant). */
const MASKED = -1e9;

interface Block {
  readonly start: number;
  readonly length: number;
  /** Key columns the block can see: start + length. */
  readonly keys: number;
}

function blocksOf(T: number, size: number): Block[] {
  const out: Block[] = [];
  for (let start = 0; start < T; start += size) {
    const length = Math.min(size, T - start);
    out.push({ start, length, keys: start + length });
  }
  return out;
}

/** [length, keys]: 0 where key s ≤ query position, MASKED after it. */
function causalBlockMask(b: Block): tf.Tensor2D {
  const mask = new Float32Array(b.length * b.keys);
  for (let t = 0; t < b.length; t++) mask.fill(MASKED, t * b.keys + b.start + t + 1, (t + 1) * b.keys);
  return tf.tensor2d(mask, [b.length, b.keys]);
}

interface Grouped {
  /** [B·kvHeads, group·len, d] queries of the block. */
  readonly q: tf.Tensor3D;
  /** [B·kvHeads, keys, d]. */
  readonly k: tf.Tensor3D;
  readonly v: tf.Tensor3D;
  /** [B·kvHeads, group·len, keys] attention probabilities. */
  readonly probs: tf.Tensor3D;
}

function blockProbs(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, b: Block, scale: number): Grouped {
  return tidyResult(() => {
    const [B, heads, , d] = q.shape;
    const kvHeads = k.shape[1];
    const group = heads / kvHeads;
    const qb = tf.reshape(tf.slice(q, [0, 0, b.start, 0], [B, heads, b.length, d]), [B * kvHeads, group * b.length, d]) as tf.Tensor3D;
    const kb = tf.reshape(tf.slice(k, [0, 0, 0, 0], [B, kvHeads, b.keys, d]), [B * kvHeads, b.keys, d]) as tf.Tensor3D;
    const vb = tf.reshape(tf.slice(v, [0, 0, 0, 0], [B, kvHeads, b.keys, d]), [B * kvHeads, b.keys, d]) as tf.Tensor3D;
    const probs = tf.tidy(() => {
      const scores = tf.mul(tf.matMul(qb, tf.transpose(kb, [0, 2, 1])), scale);
      const masked = tf.add(tf.reshape(scores, [B * kvHeads, group, b.length, b.keys]), causalBlockMask(b));
      return tf.reshape(tf.softmax(masked), [B * kvHeads, group * b.length, b.keys]) as tf.Tensor3D;
    });
    return { q: qb, k: kb, v: vb, probs };
  });
}

/** Pads [n, keys, d] with zero rows to [n, T, d]. */
function padKeys(x: tf.Tensor3D, T: number): tf.Tensor3D {
  return x.shape[1] === T ? x : tf.pad(x, [[0, 0], [0, T - x.shape[1]], [0, 0]]);
}

function backwardBlock(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, dy: tf.Tensor4D, b: Block, scale: number): tf.Tensor[] {
  return tf.tidy(() => {
    const [B, heads, T, d] = q.shape;
    const kvHeads = k.shape[1];
    const g = blockProbs(q, k, v, b, scale);
    const dOut = tf.reshape(tf.slice(dy, [0, 0, b.start, 0], [B, heads, b.length, d]), [B * kvHeads, (heads / kvHeads) * b.length, d]) as tf.Tensor3D;
    const dV = tf.matMul(tf.transpose(g.probs, [0, 2, 1]), dOut) as tf.Tensor3D;
    const dScores = tf.tidy(() => {
      const dProbs = tf.matMul(dOut, tf.transpose(g.v, [0, 2, 1]));
      return tf.mul(tf.mul(g.probs, tf.sub(dProbs, tf.sum(tf.mul(dProbs, g.probs), -1, true))), scale) as tf.Tensor3D;
    });
    const dQ = tf.matMul(dScores, g.k);
    const dK = tf.matMul(tf.transpose(dScores, [0, 2, 1]), g.q) as tf.Tensor3D;
    return [dQ, padKeys(dK, T), padKeys(dV, T)];
  });
}

/**
 * `q` [B, heads, T, d], `k`, `v` [B, kvHeads, T, d] (after RoPE) → [B, heads, T, d] context.
 * Differentiable w.r.t. q, k and v; `block` query positions at a time.
 */
export function chunkedCausalAttention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, block: number): tf.Tensor4D {
  const [B, heads, T, d] = q.shape;
  const kvHeads = k.shape[1];
  const scale = 1 / Math.sqrt(d);
  const blocks = blocksOf(T, block);
  const attend = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [qi, ki, vi] = args as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
    (args[3] as tf.GradSaveFunc)([qi, ki, vi]);
    const parts = blocks.map((b) => tf.tidy(() => {
      const g = blockProbs(qi, ki, vi, b, scale);
      return tf.reshape(tf.matMul(g.probs, g.v), [B, heads, b.length, d]);
    }));
    const value = parts.length === 1 ? parts[0]! : tf.concat(parts, 2);
    if (parts.length > 1) tf.dispose(parts);
    return {
      value,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const [qs, ks, vs] = saved as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
        const dQs: tf.Tensor[] = [];
        let dK: tf.Tensor = tf.zeros([B * kvHeads, T, d]);
        let dV: tf.Tensor = tf.zeros([B * kvHeads, T, d]);
        for (const b of blocks) {
          const [dQb, dKb, dVb] = backwardBlock(qs, ks, vs, dy as tf.Tensor4D, b, scale);
          dQs.push(tf.reshape(dQb!, [B, heads, b.length, d]));
          const [nextK, nextV] = [tf.add(dK, dKb!), tf.add(dV, dVb!)];
          tf.dispose([dK, dV, dQb!, dKb!, dVb!]);
          [dK, dV] = [nextK, nextV];
        }
        const dQ = dQs.length === 1 ? dQs[0]! : tf.concat(dQs, 2);
        return [dQ, tf.reshape(dK, [B, kvHeads, T, d]), tf.reshape(dV, [B, kvHeads, T, d])];
      }),
    };
  });
  return attend(q, k, v) as tf.Tensor4D;
}
