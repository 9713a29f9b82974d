/**
 * Per-token log-probabilities, entropies and values of whole sequences, for the learner.
 *
 * Alignment: index t describes the choice of tokens[t] — logProbs[b, t] = log p(tokens[t] |
 * tokens[<t]), entropy[b, t] the entropy of that next-token distribution, values[b, t] the value
 * of the state tokens[<t] from which tokens[t] was chosen. Index 0 has no predecessor and holds
 * 0 in all three. So a mask that is 1 on agent tokens selects exactly the agent's decisions, and
 * these numbers line up with the log-probs recorded at sampling time (sampling.ts).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TransformerConfig } from './config.ts';
import { param, type TransformerParams } from './params.ts';
import { headLogits } from './head.ts';
import { hiddenStates } from './forward.ts';
import { linear } from './ops/linear.ts';
import { tokenLogProbsAndEntropy } from './ops/token-log-probs.ts';

export interface SequenceScores {
  /** [B, T] log p(tokens[t] | tokens[<t]), 0 at t = 0. */
  readonly logProbs: tf.Tensor2D;
  /** [B, T] entropy (nats) of the full-vocabulary distribution that chose tokens[t]; 0 at t = 0. */
  readonly entropy: tf.Tensor2D;
  /** [B, T] value of the state tokens[<t]; 0 at t = 0. */
  readonly values: tf.Tensor2D;
}

export interface LogProbsOptions {
  /** Divides the logits before the softmax; use the temperature the rollouts sampled with. */
  readonly temperature?: number;
}

/** Shifts [B, T, …] one step right along time, filling index 0 with zeros. */
function shiftRight(x: tf.Tensor): tf.Tensor {
  const [b, t] = x.shape as [number, number];
  const rest = x.shape.slice(2);
  const head = tf.zeros([b, 1, ...rest]);
  return tf.concat([head, tf.slice(x, [0, 0, ...rest.map(() => 0)], [b, t - 1, ...rest])], 1);
}

/** Differentiable; `tokens` int32 [B, T] (right-padded rows are fine: padding only affects itself). */
export function logProbsOf(
  p: TransformerParams, c: TransformerConfig, tokens: tf.Tensor2D, options: LogProbsOptions = {},
): SequenceScores {
  const temperature = options.temperature ?? 1;
  if (!(temperature > 0)) throw new Error(`temperature must be > 0, got ${temperature}`);
  return tf.tidy(() => {
    const [b, t] = tokens.shape;
    const h = hiddenStates(p, c, tokens);
    let logits = headLogits(p, c, h, tokens);
    if (temperature !== 1) logits = tf.div(logits, temperature);
    // Row (b, t) predicts tokens[b, t+1]; the last row's target is a dummy that shiftRight drops.
    const next = tf.reshape(tf.concat([tf.slice(tokens, [0, 1], [b, t - 1]), tf.zeros([b, 1], 'int32')], 1), [b * t]) as tf.Tensor1D;
    const scored = shiftRight(tf.reshape(tokenLogProbsAndEntropy(logits, next), [b, t, 2]));
    const values = shiftRight(tf.reshape(linear(h, param(p, 'value.w'), param(p, 'value.b')), [b, t]));
    const [logProbs, entropy] = tf.unstack(scored, 2) as [tf.Tensor2D, tf.Tensor2D];
    return { logProbs, entropy, values: values as tf.Tensor2D };
  });
}
