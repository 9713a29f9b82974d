/**
 * A scalar value head on the final-normed hidden state, for PPO's critic: value = h · w + b.
 * w starts as N(0, (0.02 / √hidden)²) from a seeded generator and b at 0, so initial values are
 * a few hundredths whatever the model's width.
 */
import * as tf from '@tensorflow/tfjs-core';

import { mulberry32 } from '../../rng.ts';

export interface ValueHead {
  /** [hidden, 1]. */
  readonly w: tf.Variable<tf.Rank.R2>;
  /** [1]. */
  readonly b: tf.Variable<tf.Rank.R1>;
}

export function createValueHead(hidden: number, seed: number): ValueHead {
  if (!Number.isInteger(hidden) || hidden < 1) throw new Error(`createValueHead: hidden must be a positive integer, got ${hidden}`);
  const rng = mulberry32(seed);
  const std = 0.02 / Math.sqrt(hidden);
  const values = new Float32Array(hidden);
  for (let i = 0; i < hidden; i++) values[i] = std * Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  return { w: tf.variable(tf.tensor2d(values, [hidden, 1]), true), b: tf.variable(tf.zeros([1]), true) };
}

/** `hidden` [B, T, H] → [B, T] values (not shifted). */
export function valuesOf(head: ValueHead, hidden: tf.Tensor3D): tf.Tensor2D {
  return tf.tidy(() => {
    const [B, T, H] = hidden.shape;
    if (head.w.shape[0] !== H) throw new Error(`valueHead.w is [${head.w.shape.join(', ')}], the model's hidden size is ${H}`);
    const rows = tf.reshape(hidden, [B * T, H]) as tf.Tensor2D;
    return tf.reshape(tf.add(tf.matMul(rows, head.w), head.b), [B, T]) as tf.Tensor2D;
  });
}
