/**
 * Layer normalisation over the last axis with a hand-written gradient.
 *
 * On wasm and cpu, forward and backward are one JS kernel each (layer-norm-kernels.ts). Elsewhere
 * they are tf ops; even then the closed-form backward needs about half the kernels that autodiff
 * through `moments` records.
 */
import * as tf from '@tensorflow/tfjs-core';
import { sumRows } from './linear.ts';
import { customOp } from './custom-op.ts';
import { headKernelsAvailable } from './head-kernels.ts';
import { layerNormBackward, layerNormForward } from './layer-norm-kernels.ts';

export const LAYER_NORM_EPS = 1e-5;

/** Forward only (inference paths): `x` [N, d] → [N, d]. */
export function layerNormInfer(x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D): tf.Tensor2D {
  if (headKernelsAvailable()) {
    const [y, xhat, rstd] = layerNormForward(x, g, b, LAYER_NORM_EPS);
    xhat.dispose();
    rstd.dispose();
    return y;
  }
  return tf.tidy(() => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, LAYER_NORM_EPS))), g), b) as tf.Tensor2D;
  });
}

/** Differentiable: `x` [N, d], `gamma`/`beta` [d] → [N, d]. */
export function layerNorm(x: tf.Tensor2D, gamma: tf.Tensor1D, beta: tf.Tensor1D): tf.Tensor2D {
  return headKernelsAvailable() ? kernelLayerNorm(x, gamma, beta) : opsLayerNorm(x, gamma, beta);
}

function kernelLayerNorm(x: tf.Tensor2D, gamma: tf.Tensor1D, beta: tf.Tensor1D): tf.Tensor2D {
  const f = customOp<tf.Tensor2D>(([xi, g, b], save) => {
    const [y, xhat, rstd] = layerNormForward(xi as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D, LAYER_NORM_EPS);
    save([xhat, rstd, g!]);
    return {
      value: y,
      gradFunc: (dy, saved) => {
        const [xh, rs, gs] = saved as [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D];
        return layerNormBackward(dy, xh, rs, gs);
      },
    };
  });
  return f(x, gamma, beta);
}

/** The tf-ops version (backends without the JS kernels); exported for tests. */
export function opsLayerNorm(x: tf.Tensor2D, gamma: tf.Tensor1D, beta: tf.Tensor1D): tf.Tensor2D {
  const f = customOp<tf.Tensor2D>(([xi, g, b], save) => {
    const { mean, variance } = tf.moments(xi!, -1, true);
    const rstd = tf.rsqrt(tf.add(variance, LAYER_NORM_EPS));
    const xhat = tf.mul(tf.sub(xi!, mean), rstd);
    save([xhat, rstd, g!]);
    return {
      value: tf.add(tf.mul(xhat, g!), b!) as tf.Tensor2D,
      gradFunc: (d, saved) => {
        const [xh, rs, gs] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D];
        const dgamma = sumRows(tf.mul(d, xh) as tf.Tensor2D);
        const dbeta = sumRows(d);
        // dx = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)), with ĝ = dy ⊙ γ.
        const gh = tf.mul(d, gs);
        const centred = tf.sub(gh, tf.mean(gh, -1, true));
        const proj = tf.mul(xh, tf.mean(tf.mul(gh, xh), -1, true));
        return [tf.mul(tf.sub(centred, proj), rs), dgamma, dbeta];
      },
    };
  });
  return f(x, gamma, beta);
}
