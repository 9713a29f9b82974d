/**
 * The same model written the straightforward way — one-hot embedding matmul, plain `tf.matMul`
 * (autodiff, so its gradients use transpose flags), batched attention, `moments` layer norm,
 * one-hot log-prob picking. It is the yardstick for the optimised path: the tests check that
 * both give the same numbers and gradients, and bench/transformer-step.ts times both.
 */
import * as tf from '@tensorflow/tfjs-core';
import { headDim, type TransformerConfig } from './config.ts';
import { param, type TransformerParams } from './params.ts';
import { causalMask } from './attention.ts';
import { BOS_ID, NUM_SPECIAL } from '../special-tokens.ts';

function ln(x: tf.Tensor2D, p: TransformerParams, name: string): tf.Tensor2D {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), param(p, `${name}.g`)), param(p, `${name}.b`)) as tf.Tensor2D;
}

const dense = (x: tf.Tensor2D, p: TransformerParams, name: string): tf.Tensor2D =>
  tf.add(tf.matMul(x, param<tf.Rank.R2>(p, `${name}.w`)), param(p, `${name}.b`)) as tf.Tensor2D;

/** Logits [B·T, V] and values [B·T] of `tokens` [B, T]. */
export function referenceForward(p: TransformerParams, c: TransformerConfig, tokens: tf.Tensor2D): { logits: tf.Tensor2D; values: tf.Tensor1D } {
  const [b, t] = tokens.shape;
  const n = b * t;
  const { dModel: d, nHeads: h } = c;
  const dh = headDim(c);
  const oneHot = tf.cast(tf.oneHot(tf.reshape(tokens, [n]) as tf.Tensor1D, c.vocabSize), 'float32') as tf.Tensor2D;
  const pos = tf.slice(param<tf.Rank.R2>(p, 'pos_emb'), [0, 0], [t, d]);
  let x = tf.reshape(tf.add(tf.reshape(tf.matMul(oneHot, param<tf.Rank.R2>(p, 'tok_emb')), [b, t, d]), pos), [n, d]) as tf.Tensor2D;
  const mask = causalMask(t);
  const heads = (z: tf.Tensor): tf.Tensor3D => tf.reshape(tf.transpose(tf.reshape(z, [b, t, h, dh]), [0, 2, 1, 3]), [b * h, t, dh]);
  for (let l = 0; l < c.nLayers; l++) {
    const qkv = dense(ln(x, p, `h${l}.ln1`), p, `h${l}.attn.qkv`);
    const [q, k, v] = tf.split(qkv, 3, 1).map(heads) as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D];
    const probs = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), mask));
    const merged = tf.reshape(tf.transpose(tf.reshape(tf.matMul(probs, v), [b, h, t, dh]), [0, 2, 1, 3]), [n, d]) as tf.Tensor2D;
    x = tf.add(x, dense(merged, p, `h${l}.attn.out`));
    const hidden = tf.relu(dense(ln(x, p, `h${l}.ln2`), p, `h${l}.mlp.fc`));
    x = tf.add(x, dense(hidden, p, `h${l}.mlp.proj`));
  }
  const f = ln(x, p, 'ln_f');
  let logits = c.tiedEmbeddings
    ? tf.add(tf.matMul(f, param<tf.Rank.R2>(p, 'tok_emb'), false, true), param(p, 'head.b')) as tf.Tensor2D
    : dense(f, p, 'head');
  if (c.instructionCopy === true) {
    // By the definition: the words between <bos> and the first special token, from that token on.
    const bonus = (tokens.arraySync() as number[][]).map((row) => {
      const close = row[0] === BOS_ID ? row.findIndex((id, i) => i > 0 && id < NUM_SPECIAL) : -1;
      const bag = new Array<number>(c.vocabSize).fill(0);
      for (let i = 1; i < close; i++) {
        bag[row[i]!] = 1;
        if (c.copyWordForms !== true || c.copyForms === undefined) continue;
        for (const [a, other] of c.copyForms.same) if (a === row[i]) bag[other] = 1;
        for (const [a, b2, joined] of c.copyForms.joined) if (a === row[i] && i + 1 < close && b2 === row[i + 1]) bag[joined] = 1;
      }
      return row.map((_, pos) => (close > 0 && pos >= close ? bag : new Array<number>(c.vocabSize).fill(0)));
    });
    const gate = tf.reshape(dense(f, p, 'copy'), [b, t, 1]);
    logits = tf.reshape(tf.add(tf.reshape(logits, [b, t, c.vocabSize]), tf.mul(gate, tf.tensor3d(bonus))), [n, c.vocabSize]) as tf.Tensor2D;
  }
  return { logits, values: tf.reshape(dense(f, p, 'value'), [n]) as tf.Tensor1D };
}

/** Same contract as `logProbsOf` (log-probs.ts) but built from plain ops: { logProbs, entropy, values } [B, T]. */
export function referenceLogProbsOf(p: TransformerParams, c: TransformerConfig, tokens: tf.Tensor2D): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D; values: tf.Tensor2D } {
  return tf.tidy(() => {
    const [b, t] = tokens.shape;
    const { logits, values } = referenceForward(p, c, tokens);
    const logp = tf.logSoftmax(logits);
    const next = tf.reshape(tf.concat([tf.slice(tokens, [0, 1], [b, t - 1]), tf.zeros([b, 1], 'int32')], 1), [b * t]) as tf.Tensor1D;
    const picked = tf.reshape(tf.sum(tf.mul(logp, tf.oneHot(next, c.vocabSize)), -1), [b, t]);
    const entropy = tf.reshape(tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)), [b, t]);
    const shift = (z: tf.Tensor): tf.Tensor2D => tf.concat([tf.zeros([b, 1]), tf.slice(z, [0, 0], [b, t - 1])], 1) as tf.Tensor2D;
    return { logProbs: shift(picked), entropy: shift(entropy), values: shift(tf.reshape(values, [b, t])) };
  });
}
