/**
 * A dense projection `x · W + b` with W stored as [in, out]: transformers keeps nn.Linear weights
 * as [out, in], and the loader transposes them once, because a matMul with a transpose flag is
 * 10–20× slower on the WebAssembly backend (docs/architecture.md, "Compute backends").
 *
 * With a LoRA adapter the projection adds `scale · (x · A) · B`, as peft's lora.Linear does in
 * eval mode (no dropout); A and B are stored [in, r] and [r, out] for the same reason as W
 * (policy/hf/lora/).
 */
import * as tf from '@tensorflow/tfjs-core';

/** A low-rank update of one projection. */
export interface LoraWeights {
  /** [in, r] (peft's lora_A.weight transposed). */
  readonly a: tf.Tensor2D;
  /** [r, out] (peft's lora_B.weight transposed). */
  readonly b: tf.Tensor2D;
  /** alpha / r, or alpha / √r with rsLoRA. */
  readonly scale: number;
}

export interface LinearWeights {
  /** [in, out]. */
  readonly weight: tf.Tensor2D;
  /** [out], or absent. */
  readonly bias?: tf.Tensor1D;
  /** A LoRA adapter on this projection, or absent. */
  readonly lora?: LoraWeights;
}

/** `x`: [rows, in] → [rows, out]. */
export function linear(x: tf.Tensor2D, w: LinearWeights): tf.Tensor2D {
  return tf.tidy((): tf.Tensor2D => {
    const y = tf.matMul<tf.Tensor2D>(x, w.weight);
    const biased = w.bias === undefined ? y : (tf.add(y, w.bias) as tf.Tensor2D);
    if (w.lora === undefined) return biased;
    const low = tf.matMul<tf.Tensor2D>(tf.matMul<tf.Tensor2D>(x, w.lora.a), w.lora.b);
    return tf.add(biased, tf.mul(low, w.lora.scale));
  });
}
