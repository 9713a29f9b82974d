/**
 * RMSNorm as transformers computes it (LlamaRMSNorm, Qwen2RMSNorm, Qwen3RMSNorm):
 * `weight * x / sqrt(mean(x², last axis) + eps)`, in float32.
 */
import * as tf from '@tensorflow/tfjs-core';

export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor1D, eps: number): T {
  return tf.tidy(() => {
    const variance = tf.mean(tf.square(x), -1, true);
    return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight) as T;
  });
}
