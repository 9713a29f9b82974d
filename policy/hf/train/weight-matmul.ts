/**
 * `x · W` for a weight W with a custom gradient that transposes explicitly: TF.js's own matMul
 * gradient multiplies with a transpose flag (dx = dy·Wᵀ, dW = xᵀ·dy), the slow path on the
 * WebAssembly backend (10–20×, shared/reference/tfjs-on-this-machine.md). dW is computed only
 * when W is a trainable variable (a frozen base weight under LoRA costs nothing backward).
 */
import * as tf from '@tensorflow/tfjs-core';

import { isTrainable } from './trainable-inputs.ts';

/** `x` [rows, in], `w` [in, out] → [rows, out]. */
export function weightMatMul(x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D {
  const trains = isTrainable(w);
  const product = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const input = args[0] as tf.Tensor2D;
    (args[args.length - 1] as tf.GradSaveFunc)(trains ? [input] : []);
    return {
      value: tf.matMul(input, w),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const dx = tf.matMul(dy as tf.Tensor2D, tf.transpose(w));
        return trains ? [dx, tf.matMul(tf.transpose(saved[0]!) as tf.Tensor2D, dy as tf.Tensor2D)] : [dx];
      }),
    };
  });
  return (trains ? product(x, w) : product(x)) as tf.Tensor2D;
}
