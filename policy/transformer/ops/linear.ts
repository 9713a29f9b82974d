/**
 * A dense layer `x @ w + b` (optionally followed by ReLU) whose gradient uses explicit
 * transposes and plain matmuls.
 *
 * Why: tfjs's built-in matMul gradient calls matMul with transpose flags, which the WebAssembly
 * backend runs through a slow generic loop (10–20× slower than its XNNPACK path; see
 * docs/architecture.md, "Compute backends"). `tf.transpose` + plain `tf.matMul` stays on the fast
 * path, so this layer's backward pass costs about two forward matmuls.
 */
import * as tf from '@tensorflow/tfjs-core';
import { customOp } from './custom-op.ts';
import { transpose2d } from './transpose.ts';

export type Activation = 'linear' | 'relu';

/**
 * Column sums of `x` [N, C] → [C], as `ones[1, N] @ x`. Why: on wasm a reduction over axis 0
 * transposes first and costs as much as the layer's matmul (33 ms for 4,096 × 512); the
 * matmul with a ones row takes 0.25 ms.
 */
export function sumRows(x: tf.Tensor2D): tf.Tensor1D {
  return tf.tidy(() => tf.reshape(tf.matMul(tf.ones([1, x.shape[0]]), x), [x.shape[1]]) as tf.Tensor1D);
}

/** `x` [N, in], `w` [in, out], `b` [out] → [N, out]. */
export function linear(x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D, activation: Activation = 'linear'): tf.Tensor2D {
  const f = customOp<tf.Tensor2D>(([xi, wi, bi], save) => {
    const y = tf.fused.matMul({ a: xi as tf.Tensor2D, b: wi as tf.Tensor2D, bias: bi!, activation }) as tf.Tensor2D;
    save(activation === 'relu' ? [xi!, wi!, y] : [xi!, wi!]);
    return {
      value: y,
      gradFunc: (dy, saved) => {
        const [xs, ws, ys] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D | undefined];
        let g = dy;
        // ReLU's derivative from its output: positive outputs pass the gradient through.
        if (ys !== undefined) g = tf.mul(g, tf.step(ys));
        const dx = tf.matMul(g, transpose2d(ws));
        const [nIn, nOut] = ws.shape;
        if (nIn < nOut) return [dx, tf.matMul(transpose2d(xs), g), sumRows(g)];
        // Transpose the narrower operand (a transpose costs ~1 ns an element, transpose.ts): with
        // gᵀ in hand, dW = (gᵀ·x)ᵀ and the bias gradient is a fast last-axis sum.
        const gT = transpose2d(g);
        return [dx, transpose2d(tf.matMul(gT, xs)), tf.sum(gT, 1)];
      },
    };
  });
  return f(x, w, b);
}
