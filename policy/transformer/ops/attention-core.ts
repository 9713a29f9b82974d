/**
 * The core of causal multi-head attention, softmax(QKᵀ/√dh + mask)·V, as one custom-gradient
 * op from the fused projection qkv [B·T, 3d] to the merged heads [B·T, d].
 *
 * Why one op with a hand-written backward: on the WebAssembly backend a batched matmul runs at
 * about 2 GFLOP/s (and transposed ones worse), while a 2-D matmul goes to XNNPACK. So per
 * (sequence, head) pair we run plain 2-D matmuls in a loop, with the heads cut out and put back
 * by the copy kernels in head-kernels.ts. The backward pass is the textbook one:
 *   dV = Pᵀ·dO,  dP = dO·Vᵀ,  dS = P ⊙ (dP − rowsum(dP ⊙ P)),  dQ = s·dS·K,  dK = s·dSᵀ·Q,
 * with dV and dK produced transposed (see the note in the backward).
 * Backends without those kernels (tfjs-node) take plain tf ops and autodiff, which is fast there.
 * On wasm, fused-attention.ts does the whole op in one WebAssembly SIMD call each way, faster
 * still; this loop serves the cpu backend (tests, and the fused kernel's reference).
 */
import * as tf from '@tensorflow/tfjs-core';
import { customOp } from './custom-op.ts';
import { fusedAttention, fusedAttentionAvailable } from './fused-attention.ts';
import { fastUnstack, headKernelsAvailable, mergeHeads, splitHeads, type HeadShape } from './head-kernels.ts';

/** `qkv` [B·T, 3d] (columns: q | k | v, heads contiguous within each), `mask` [T, T] additive → [B·T, d]. */
export function attentionCore(qkv: tf.Tensor2D, s: HeadShape, mask: tf.Tensor2D): tf.Tensor2D {
  if (fusedAttentionAvailable()) return fusedAttention(qkv, s);
  return headKernelsAvailable() ? fastAttention(qkv, s, mask) : genericAttention(qkv, s, mask);
}

function fastAttention(qkv: tf.Tensor2D, s: HeadShape, mask: tf.Tensor2D): tf.Tensor2D {
  const d = s.heads * s.headDim;
  const scale = 1 / Math.sqrt(s.headDim);
  const f = customOp<tf.Tensor2D>(([x], save) => {
    const xs = x as tf.Tensor2D;
    const qs = splitHeads(xs, s, 0, false, scale);
    const kts = splitHeads(xs, s, d, true);
    const vs = splitHeads(xs, s, 2 * d);
    const scores = tf.stack(qs.map((q, i) => tf.matMul(q, kts[i]!))) as tf.Tensor3D;
    const probs = tf.softmax(tf.add(scores, mask)) as tf.Tensor3D;
    const ps = fastUnstack(probs) as tf.Tensor2D[];
    save([xs, probs]);
    return {
      value: mergeHeads(ps.map((p, i) => tf.matMul(p, vs[i]!)), s),
      gradFunc: (dy, saved) => {
        const [x0, p] = saved as [tf.Tensor2D, tf.Tensor3D];
        // dV and dK are computed transposed (dVᵀ = dOᵀ·P, dKᵀ = s·Qᵀ·dS): Qᵀ and dOᵀ come
        // transposed from the head-copy kernel for free, so no [T, T] item (P, dS) has to be
        // transposed — that copy costs about as much as the matmuls it feeds (7 ms per 128 items).
        const dos = splitHeads(dy, s, 0);
        const dots = splitHeads(dy, s, 0, true);
        const vts = splitHeads(x0, s, 2 * d, true);
        const ps = fastUnstack(p) as tf.Tensor2D[];
        const dP = tf.stack(dos.map((g, i) => tf.matMul(g, vts[i]!))) as tf.Tensor3D;
        const dvts = dots.map((g, i) => tf.matMul(g, ps[i]!));
        const dS = tf.mul(tf.mul(p, tf.sub(dP, tf.sum(tf.mul(dP, p), -1, true))), scale) as tf.Tensor3D;
        const dss = fastUnstack(dS) as tf.Tensor2D[];
        const ks = splitHeads(x0, s, d);
        const qts = splitHeads(x0, s, 0, true);
        const dqs = dss.map((g, i) => tf.matMul(g, ks[i]!));
        const dkts = qts.map((qt, i) => tf.matMul(qt, dss[i]!));
        return mergeHeads([...dqs, ...dkts, ...dvts], s, [false, true, true]);
      },
    };
  });
  return f(qkv);
}

/** Same maths in plain tf ops (differentiated by tfjs), for backends without the copy kernels. */
export function genericAttention(qkv: tf.Tensor2D, s: HeadShape, mask: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const { batch: b, time: t, heads: h, headDim: dh } = s;
    const heads = (x: tf.Tensor): tf.Tensor3D => tf.reshape(tf.transpose(tf.reshape(x, [b, t, h, dh]), [0, 2, 1, 3]), [b * h, t, dh]);
    const [q, k, v] = tf.split(qkv, 3, 1).map(heads) as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D];
    const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), mask);
    const out = tf.matMul(tf.softmax(scores), v);
    return tf.reshape(tf.transpose(tf.reshape(out, [b, h, t, dh]), [0, 2, 1, 3]), [b * t, h * dh]) as tf.Tensor2D;
  });
}
