/**
 * The output head, log-softmax and entropy over chunks of positions, so the [B, T, vocab] logits
 * never exist at once (a fused/chunked cross-entropy): the forward pass keeps only the per-token
 * log-prob and entropy, and the backward pass recomputes each chunk's logits from the saved
 * hidden states. Peak memory is a few [B · chunk, vocab] tensors.
 *
 * Gradients, with z = logits / temperature, p = softmax(z), Hₑ = −Σ p log p:
 *   d log p(y) / dz = onehot(y) − p,     d Hₑ / dz = −p ⊙ (log p + Hₑ).
 * Products use explicit transposes and plain matMuls (a transpose flag is the slow path on wasm).
 * The target's +1 is scattered (ScatterNd) rather than built as a one-hot: fewer [n, V] tensors, and
 * wasm's OneHot with dtype 'float32' returns all zeros (tfjs-backend-wasm 4.22, measured).
 */
import * as tf from '@tensorflow/tfjs-core';

import { tidyResult } from '../tidy.ts';
import { isTrainable } from './trainable-inputs.ts';

export interface ChunkedScoreOptions {
  readonly temperature: number;
  /** Positions per chunk (each chunk is [B · chunk, vocab]). */
  readonly chunk: number;
}

interface Chunk {
  readonly start: number;
  readonly length: number;
}

function chunksOf(n: number, size: number): Chunk[] {
  const out: Chunk[] = [];
  for (let start = 0; start < n; start += size) out.push({ start, length: Math.min(size, n - start) });
  return out;
}

/**
 * One chunk's rows [B · len, H], log-softmax of its scaled logits [B · len, V] and targets
 * [B · len]. The logits and the softmax's temporaries are freed before this returns (only a few
 * [B · len, V] tensors are ever alive at once).
 */
function chunkLogProbs(hidden: tf.Tensor3D, head: tf.Tensor2D, targets: tf.Tensor2D, c: Chunk, temperature: number) {
  const [B, , H] = hidden.shape;
  const rows = tf.reshape(tf.slice(hidden, [0, c.start, 0], [B, c.length, H]), [B * c.length, H]) as tf.Tensor2D;
  const logp = tf.tidy(() => {
    const logits = tf.matMul(rows, head);
    return tf.logSoftmax(temperature === 1 ? logits : tf.div(logits, temperature)) as tf.Tensor2D;
  });
  const target = tf.reshape(tf.slice(targets, [0, c.start], [B, c.length]), [B * c.length]) as tf.Tensor1D;
  return { rows, logp, target };
}

/** [n, 1]: −Σ p log p per row. */
function rowEntropy(p: tf.Tensor2D, logp: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => tf.neg(tf.sum(tf.mul(p, logp), -1, true)) as tf.Tensor2D);
}

function forwardChunk(hidden: tf.Tensor3D, head: tf.Tensor2D, targets: tf.Tensor2D, c: Chunk, temperature: number): tf.Tensor3D {
  return tf.tidy(() => {
    const { logp, target } = chunkLogProbs(hidden, head, targets, c, temperature);
    const [n, V] = logp.shape;
    const flatIndex = tf.add(tf.mul(tf.range(0, n, 1, 'int32'), tf.scalar(V, 'int32')), target);
    const picked = tf.reshape(tf.gather(tf.reshape(logp, [n * V]), flatIndex), [n, 1]);
    const entropy = rowEntropy(tf.tidy(() => tf.exp(logp)), logp);
    return tf.reshape(tf.concat([picked, entropy], 1), [hidden.shape[0], c.length, 2]) as tf.Tensor3D;
  });
}

/** d(gLogProb · log p(y) + gEntropy · Hₑ) / d logits, [n, V]; frees `logp`. */
function logitGradient(logp: tf.Tensor2D, target: tf.Tensor1D, g: tf.Tensor2D, temperature: number): tf.Tensor2D {
  return tf.tidy(() => {
    const [n, V] = logp.shape;
    const [gLogProb, gEntropy] = tf.split(g, 2, 1) as [tf.Tensor2D, tf.Tensor2D];
    const p = tf.exp(logp);
    // p ⊙ (gLogProb + gEntropy · (log p + Hₑ)): the −p parts of both gradients.
    const pTerm = tf.tidy(() => tf.mul(p, tf.add(gLogProb, tf.mul(gEntropy, tf.add(logp, rowEntropy(p, logp))))));
    tf.dispose([p, logp]);
    // + gLogProb at each row's target (scatter: one [n, V] tensor, where a one-hot would take three).
    const rowsAndTargets = tf.stack([tf.range(0, n, 1, 'int32'), target], 1);
    const hit = tf.scatterND(rowsAndTargets, tf.reshape(gLogProb, [n]), [n, V]);
    const dz = tf.sub(hit, pTerm) as tf.Tensor2D;
    tf.dispose([hit, pTerm]);
    return temperature === 1 ? dz : tf.div(dz, temperature);
  });
}

/** Gradients of one chunk: d rows [B, len, H] and, when the head trains, d head [H, V]. */
function backwardChunk(
  hidden: tf.Tensor3D, head: tf.Tensor2D, headT: tf.Tensor2D, targets: tf.Tensor2D, dy: tf.Tensor3D,
  c: Chunk, temperature: number, headTrains: boolean,
): { dRows: tf.Tensor3D; dHead?: tf.Tensor2D } {
  return tidyResult(() => {
    const [B, , H] = hidden.shape;
    const { rows, logp, target } = chunkLogProbs(hidden, head, targets, c, temperature);
    const g = tf.reshape(tf.slice(dy, [0, c.start, 0], [B, c.length, 2]), [B * c.length, 2]) as tf.Tensor2D;
    const dLogits = logitGradient(logp, target, g, temperature);
    const dRows = tf.reshape(tf.matMul(dLogits, headT), [B, c.length, H]) as tf.Tensor3D;
    if (!headTrains) return { dRows };
    return { dRows, dHead: tf.matMul(tf.transpose(rows), dLogits) };
  });
}

/**
 * `hidden` [B, N, H] (final-normed states), `head` [H, V], `targets` [B, N] int32 →
 * [B, N, 2]: log p(targets[b, n]) and the entropy of the distribution at (b, n), both at
 * `temperature`. Differentiable w.r.t. `hidden`, and w.r.t. `head` when it is a trainable variable.
 */
export function chunkedTokenScores(hidden: tf.Tensor3D, head: tf.Tensor2D, targets: tf.Tensor2D, options: ChunkedScoreOptions): tf.Tensor3D {
  const { temperature, chunk } = options;
  const chunks = chunksOf(hidden.shape[1], chunk);
  const headTrains = isTrainable(head);
  const scores = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const h = args[0] as tf.Tensor3D;
    (args[args.length - 1] as tf.GradSaveFunc)([h, targets]);
    const parts = chunks.map((c) => forwardChunk(h, head, targets, c, temperature));
    const value = parts.length === 1 ? parts[0]! : tf.concat(parts, 1);
    if (parts.length > 1) tf.dispose(parts);
    return {
      value,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const [hs, ts] = saved as [tf.Tensor3D, tf.Tensor2D];
        const headT = tf.transpose(head);
        const dRows: tf.Tensor3D[] = [];
        let dHead: tf.Tensor2D | undefined;
        for (const c of chunks) {
          const part = backwardChunk(hs, head, headT, ts, dy as tf.Tensor3D, c, temperature, headTrains);
          dRows.push(part.dRows);
          if (part.dHead !== undefined) {
            const sum = dHead === undefined ? part.dHead : tf.add(dHead, part.dHead);
            if (dHead !== undefined) tf.dispose([dHead, part.dHead]);
            dHead = sum as tf.Tensor2D;
          }
        }
        const dHidden = dRows.length === 1 ? dRows[0]! : tf.concat(dRows, 1);
        return headTrains ? [dHidden, dHead!] : [dHidden];
      }),
    };
  });
  return (headTrains ? scores(hidden, head) : scores(hidden)) as tf.Tensor3D;
}
