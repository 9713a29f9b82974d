/**
 * Global-norm gradient clipping, as `torch.nn.utils.clip_grad_norm_` (paper's recipe: 1.0).
 *
 *   norm  = sqrt(Σ_params Σ g²)
 *   scale = min(1, maxNorm / (norm + 1e-6))
 *   g'    = g · scale
 *
 * Returns new tensors; the input gradients are left to the caller to dispose. The pre-clip norm
 * comes back as a number for logging. A non-finite norm (NaN/Inf gradients) makes the clipped
 * gradients non-finite too: check `Number.isFinite(norm)` and skip the optimizer step, as verl
 * does.
 */
import * as tf from '@tensorflow/tfjs-core';

export type GradClipArgs = {
  /** maximum global L2 norm of all gradients together (paper's recipe: 1.0) */
  maxNorm: number;
};

export const gradClipDefaults: GradClipArgs = { maxNorm: 1.0 };

/** Added to the norm before dividing (torch: 1e-6). */
export const GRAD_CLIP_EPSILON = 1e-6;

export function clipByGlobalNorm(
  grads: tf.NamedTensorMap,
  args: Partial<GradClipArgs> = {},
): { grads: tf.NamedTensorMap; norm: number } {
  const { maxNorm } = { ...gradClipDefaults, ...args };
  const names = Object.keys(grads);
  if (names.length === 0) return { grads: {}, norm: 0 };

  let norm = 0;
  const clipped = tf.tidy(() => {
    // --- global norm ------------------------------------------------------------------------------
    const squares = names.map((name) => tf.sum(tf.square(grads[name] as tf.Tensor)));
    const normT = tf.sqrt(tf.addN(squares));
    norm = normT.dataSync()[0] as number;

    // --- scale ------------------------------------------------------------------------------------
    const scale = tf.minimum(1, tf.div(maxNorm, tf.add(normT, GRAD_CLIP_EPSILON)));
    const out: tf.NamedTensorMap = {};
    for (const name of names) out[name] = tf.mul(grads[name] as tf.Tensor, scale);
    return out;
  });
  return { grads: clipped, norm };
}
