/**
 * Per-row log-probability of a chosen token and the entropy of the row's softmax, from logits,
 * in one pass with a hand-written gradient.
 *
 * Why: picking the target column with `tf.gather` has no gradient on the WebAssembly backend,
 * and a one-hot mask costs extra [N, V] passes. The forward computes log-softmax once; the
 * backward is the closed form
 *   ∂ log p_y / ∂z = onehot(y) − p,        ∂H / ∂z = −p ⊙ (log p + H),
 * with the one-hot added by `scatterND` (O(N), not O(N·V)).
 */
import * as tf from '@tensorflow/tfjs-core';
import { customOp } from './custom-op.ts';

/**
 * `logits` [N, V], `targets` int32 [N] → [N, 2]: column 0 is log softmax(logits)[target],
 * column 1 the entropy of softmax(logits) (nats).
 */
export function tokenLogProbsAndEntropy(logits: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor2D {
  const [n, v] = logits.shape;
  const f = customOp<tf.Tensor2D>(([z], save) => {
    const flatIndex = tf.add(tf.mul(tf.range(0, n, 1, 'int32'), tf.scalar(v, 'int32')), targets);
    // One exp over [N, V] (wasm's exp costs ~8 ns an element): p and log p share it.
    const shifted = tf.sub(z!, tf.max(z!, -1, true));
    const e = tf.exp(shifted);
    const total = tf.sum(e, -1, true);
    const logp = tf.sub(shifted, tf.log(total));
    const p = tf.div(e, total);
    const picked = tf.gather(tf.reshape(logp, [-1]), flatIndex);
    const entropy = tf.neg(tf.sum(tf.mul(p, logp), -1));
    save([logp, p, entropy, flatIndex]);
    return {
      value: tf.stack([picked, entropy], 1) as tf.Tensor2D,
      gradFunc: (dy, saved) => {
        const [lp, ps, h, idx] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D, tf.Tensor1D];
        const [gLogp, gEnt] = tf.unstack(dy, 1) as [tf.Tensor1D, tf.Tensor1D];
        const oneHotG = tf.reshape(tf.scatterND(tf.reshape(idx, [n, 1]), gLogp, [n * v]), [n, v]);
        const fromLogp = tf.sub(oneHotG, tf.mul(ps, tf.reshape(gLogp, [n, 1])));
        const fromEnt = tf.mul(tf.neg(tf.mul(ps, tf.add(lp, tf.reshape(h, [n, 1])))), tf.reshape(gEnt, [n, 1]));
        return tf.add(fromLogp, fromEnt);
      },
    };
  });
  return f(logits);
}
