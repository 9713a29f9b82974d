/**
 * The training forward pass: all positions of a right-padded batch at once, differentiable,
 * built from the transpose-free custom-gradient ops in ./ops (see their notes for why).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TransformerConfig } from './config.ts';
import { param, type TransformerParams } from './params.ts';
import { headLogits } from './head.ts';
import { causalMask, causalSelfAttention } from './attention.ts';
import { embed } from './ops/embedding.ts';
import { layerNorm } from './ops/layer-norm.ts';
import { linear } from './ops/linear.ts';

export interface ForwardOutput {
  /** [B, T, V]: logits of the token that follows each position. */
  readonly logits: tf.Tensor3D;
  /** [B, T]: value estimate of the state after reading tokens[0..t]. */
  readonly values: tf.Tensor2D;
}

/** Final hidden states [B·T, d] (after the last layer norm). */
export function hiddenStates(p: TransformerParams, c: TransformerConfig, tokens: tf.Tensor2D): tf.Tensor2D {
  const [b, t] = tokens.shape;
  if (t > c.maxContext) throw new Error(`sequence length ${t} exceeds maxContext ${c.maxContext}`);
  const n = b * t;
  const ids = tf.reshape(tokens, [n]) as tf.Tensor1D;
  const tok = tf.reshape(embed(param(p, 'tok_emb'), ids), [b, t, c.dModel]);
  // A slice of the position table broadcast over the batch: its gradient is a pad and a sum,
  // both differentiable on wasm (a gather would not be).
  const pos = tf.slice(param<tf.Rank.R2>(p, 'pos_emb'), [0, 0], [t, c.dModel]);
  let x = tf.reshape(tf.add(tok, pos), [n, c.dModel]) as tf.Tensor2D;
  const mask = causalMask(t);
  for (let l = 0; l < c.nLayers; l++) {
    const a = layerNorm(x, param(p, `h${l}.ln1.g`), param(p, `h${l}.ln1.b`));
    x = tf.add(x, causalSelfAttention(a, b, t, l, p, c, mask));
    const m = layerNorm(x, param(p, `h${l}.ln2.g`), param(p, `h${l}.ln2.b`));
    const hidden = linear(m, param(p, `h${l}.mlp.fc.w`), param(p, `h${l}.mlp.fc.b`), 'relu');
    x = tf.add(x, linear(hidden, param(p, `h${l}.mlp.proj.w`), param(p, `h${l}.mlp.proj.b`)));
  }
  return layerNorm(x, param(p, 'ln_f.g'), param(p, 'ln_f.b'));
}

/** `tokens` int32 [B, T] → logits [B, T, V] and values [B, T]; causal, differentiable. */
export function forward(p: TransformerParams, c: TransformerConfig, tokens: tf.Tensor2D): ForwardOutput {
  return tf.tidy(() => {
    const [b, t] = tokens.shape;
    const h = hiddenStates(p, c, tokens);
    const logits = tf.reshape(headLogits(p, c, h, tokens), [b, t, c.vocabSize]) as tf.Tensor3D;
    const values = tf.reshape(linear(h, param(p, 'value.w'), param(p, 'value.b')), [b, t]) as tf.Tensor2D;
    return { logits, values };
  });
}
