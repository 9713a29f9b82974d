/**
 * policy/hf/linear.ts and mlp.ts for training: the same arithmetic (x·W + b, plus
 * scale·(x·A)·B with a LoRA adapter; down(silu(gate(x)) · up(x))), with every weight product
 * through weightMatMul so the backward pass avoids the wasm backend's slow transposed matMul.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { LinearWeights } from '../linear.ts';
import type { MlpWeights } from '../mlp.ts';
import { weightMatMul } from './weight-matmul.ts';

/** `x`: [rows, in] → [rows, out]. */
export function trainingLinear(x: tf.Tensor2D, w: LinearWeights): tf.Tensor2D {
  return tf.tidy((): tf.Tensor2D => {
    const y = weightMatMul(x, w.weight);
    const biased = w.bias === undefined ? y : (tf.add(y, w.bias) as tf.Tensor2D);
    if (w.lora === undefined) return biased;
    const low = weightMatMul(weightMatMul(x, w.lora.a), w.lora.b);
    return tf.add(biased, tf.mul(low, w.lora.scale));
  });
}

/** `x`: [rows, hidden] → [rows, hidden]. */
export function trainingMlp(x: tf.Tensor2D, w: MlpWeights): tf.Tensor2D {
  return tf.tidy(() => {
    const gate = trainingLinear(x, w.gate);
    const silu = tf.mul(gate, tf.sigmoid(gate));
    return trainingLinear(tf.mul(silu, trainingLinear(x, w.up)) as tf.Tensor2D, w.down);
  });
}
