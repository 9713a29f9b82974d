/**
 * The plain path the training scores must equal: the model's own forward pass with all logits,
 * then log-softmax of logits / temperature over the full [B, T, vocab] tensor, and the final-normed
 * hidden states rebuilt from the model's own layers (for the value head). Shared by the tests of
 * policy/hf/train/.
 */
import * as tf from '@tensorflow/tfjs-core';

import { attentionMask, type HfCausalLm } from '../../../../policy/hf/causal-lm.ts';
import { decoderLayer } from '../../../../policy/hf/decoder-layer.ts';
import { rmsNorm } from '../../../../policy/hf/rms-norm.ts';
import { ropeInverseFrequencies, ropeTables } from '../../../../policy/hf/rope.ts';
import type { SequenceScores } from '../../../../policy/transformer/log-probs.ts';
import { mulberry32 } from '../../../../policy/rng.ts';
import type { ValueHead } from '../../../../policy/hf/train/value-head.ts';

/** Right-padded rows: token ids [B, T] (pad 0) and a mask that is 1 on t ∈ [1, length). */
export interface PaddedBatch {
  readonly rows: number[][];
  readonly tokens: Int32Array;
  readonly mask: Float32Array;
  readonly batch: number;
  readonly length: number;
}

export function randomRows(vocab: number, lengths: readonly number[], seed: number): number[][] {
  const rng = mulberry32(seed);
  return lengths.map((n) => Array.from({ length: n }, () => 1 + Math.floor(rng.next() * (vocab - 1))));
}

export function padRight(rows: number[][]): PaddedBatch {
  const length = Math.max(...rows.map((r) => r.length));
  const tokens = new Int32Array(rows.length * length);
  const mask = new Float32Array(rows.length * length);
  rows.forEach((r, b) => {
    tokens.set(r, b * length);
    for (let t = 1; t < r.length; t++) mask[b * length + t] = 1;
  });
  return { rows, tokens, mask, batch: rows.length, length };
}

function shiftRight(x: tf.Tensor2D): tf.Tensor2D {
  const [B, T] = x.shape;
  return tf.concat([tf.zeros([B, 1]), tf.slice(x, [0, 0], [B, T - 1])], 1);
}

/** Final-normed hidden states [B, T, H] through the model's own layers (positions 0..T−1). */
export function referenceHidden(model: HfCausalLm, batch: PaddedBatch): tf.Tensor3D {
  return tf.tidy(() => {
    const { batch: B, length: T } = batch;
    const { config, weights } = model;
    const positions = Int32Array.from({ length: B * T }, (_, i) => i % T);
    const rope = ropeTables(ropeInverseFrequencies(config), positions, B, T);
    const mask = attentionMask(new Uint8Array(B * T).fill(1), B, T);
    const ids = tf.tensor1d(batch.tokens, 'int32');
    const table = weights.embedTokens;
    let x = tf.reshape(table === undefined ? tf.transpose(tf.gather(weights.lmHead, ids, 1)) : tf.gather(table, ids), [B, T, config.hiddenSize]) as tf.Tensor3D;
    for (const layer of weights.layers) x = decoderLayer(layer, config, { x, rope, mask }).out;
    return rmsNorm(x, weights.finalNorm, config.rmsNormEps);
  });
}

/** forward('all') → log-softmax(logits / temperature) → the learner's alignment. Differentiable. */
export function referenceScores(model: HfCausalLm, batch: PaddedBatch, temperature: number, valueHead?: ValueHead): SequenceScores {
  return tf.tidy(() => {
    const { batch: B, length: T } = batch;
    const V = model.config.vocabSize;
    const logits = model.forward({
      tokens: batch.tokens, batch: B, length: T,
      positions: Int32Array.from({ length: B * T }, (_, i) => i % T),
      keyMask: new Uint8Array(B * T).fill(1),
    }).logits;
    const logp = tf.logSoftmax(tf.div(logits, temperature));
    const next = new Int32Array(B * T);
    for (let b = 0; b < B; b++) for (let t = 0; t + 1 < T; t++) next[b * T + t] = batch.tokens[b * T + t + 1]!;
    const picked = tf.sum(tf.mul(logp, tf.oneHot(tf.tensor2d(next, [B, T], 'int32'), V)), -1) as tf.Tensor2D;
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)) as tf.Tensor2D;
    let values = tf.zeros([B, T]) as tf.Tensor2D;
    if (valueHead !== undefined) {
      const h = tf.reshape(referenceHidden(model, batch), [B * T, model.config.hiddenSize]);
      values = shiftRight(tf.reshape(tf.add(tf.matMul(h, valueHead.w), valueHead.b), [B, T]));
    }
    return { logProbs: shiftRight(picked), entropy: shiftRight(entropy), values } as unknown as tf.TensorContainer;
  }) as unknown as SequenceScores;
}

/** −Σ mask · log p / Σ mask. */
export function maskedNll(scores: SequenceScores, mask: tf.Tensor2D): tf.Scalar {
  return tf.div(tf.neg(tf.sum(tf.mul(scores.logProbs, mask))), tf.sum(mask));
}

/** Σ mask · entropy / Σ mask (an entropy bonus's term). */
export function maskedEntropy(scores: SequenceScores, mask: tf.Tensor2D): tf.Scalar {
  return tf.div(tf.sum(tf.mul(scores.entropy, mask)), tf.sum(mask));
}

/** Σ mask · value² / Σ mask (reaches the value head and, through it, the hidden states). */
export function maskedValueSquare(scores: SequenceScores, mask: tf.Tensor2D): tf.Scalar {
  return tf.div(tf.sum(tf.mul(tf.square(scores.values), mask)), tf.sum(mask));
}
