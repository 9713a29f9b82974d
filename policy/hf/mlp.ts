/** The SwiGLU feed-forward block of Llama/Qwen: down(silu(gate(x)) · up(x)). */
import * as tf from '@tensorflow/tfjs-core';

import { linear, type LinearWeights } from './linear.ts';

export interface MlpWeights {
  readonly gate: LinearWeights;
  readonly up: LinearWeights;
  readonly down: LinearWeights;
}

/** `x`: [rows, hidden] → [rows, hidden]. */
export function swigluMlp(x: tf.Tensor2D, w: MlpWeights): tf.Tensor2D {
  return tf.tidy(() => {
    const gate = linear(x, w.gate);
    const silu = tf.mul(gate, tf.sigmoid(gate));
    return linear(tf.mul(silu, linear(x, w.up)) as tf.Tensor2D, w.down);
  });
}
