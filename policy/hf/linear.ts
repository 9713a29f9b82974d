/**
 * A dense projection `x · W + b` with W stored as [in, out]: transformers keeps nn.Linear weights
 * as [out, in], and the loader transposes them once, because a matMul with a transpose flag is
 * 10–20× slower on the WebAssembly backend (docs/architecture.md, "Compute backends").
 */
import * as tf from '@tensorflow/tfjs-core';

export interface LinearWeights {
  /** [in, out]. */
  readonly weight: tf.Tensor2D;
  /** [out], or absent. */
  readonly bias?: tf.Tensor1D;
}

/** `x`: [rows, in] → [rows, out]. */
export function linear(x: tf.Tensor2D, w: LinearWeights): tf.Tensor2D {
  return tf.tidy((): tf.Tensor2D => {
    const y = tf.matMul<tf.Tensor2D>(x, w.weight);
    return w.bias === undefined ? y : (tf.add(y, w.bias) as tf.Tensor2D);
  });
}
