/**
 * Per-token log-probs, entropies and values under the CONSTRAINED distribution: the softmax over
 * the tokens that were allowed at each position (the action trie's continuations), which is the
 * distribution constrained decoding actually samples from. Same alignment as log-probs.ts.
 *
 * Why the learner needs this rather than the full-vocabulary log-prob the sampler records
 * (sampling.ts): with a full-vocabulary loss, lowering the log-prob of a bad action moves its
 * mass onto tokens that are never allowed — nothing the agent can sample — so the KL to the
 * reference and the entropy bonus end up measuring mass on junk tokens (measured on BabyAI: the
 * k3 KL hits its clamp of 10 within 30 steps while the full-vocabulary entropy barely moves), and
 * the PPO ratio is not the ratio of the sampling distributions. Restricted to the allowed set, the
 * ratio, the KL, the entropy and the gradient all speak about the choices the agent has.
 *
 * `bias` [B, T, V] holds 0 on allowed tokens and `DISALLOWED` elsewhere (all 0 where every token
 * is allowed: instruction, observation and free-form positions); it is added to the logits.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TransformerConfig } from './config.ts';
import { param, type TransformerParams } from './params.ts';
import { headLogits } from './head.ts';
import { hiddenStates } from './forward.ts';
import { linear } from './ops/linear.ts';
import { tokenLogProbsAndEntropy } from './ops/token-log-probs.ts';
import type { SequenceScores } from './log-probs.ts';

/** Added to the logit of a token that was not allowed: exp underflows to exactly 0. */
export const DISALLOWED = -1e9;

function shiftRight(x: tf.Tensor): tf.Tensor {
  const [b, t] = x.shape as [number, number];
  const rest = x.shape.slice(2);
  return tf.concat([tf.zeros([b, 1, ...rest]), tf.slice(x, [0, 0, ...rest.map(() => 0)], [b, t - 1, ...rest])], 1);
}

/**
 * Differentiable. `bias[b, t]` constrains the choice of `tokens[b, t]` (the same index the
 * outputs use), so it is shifted left by one onto the logits of position t − 1.
 */
export function constrainedLogProbsOf(
  p: TransformerParams,
  c: TransformerConfig,
  tokens: tf.Tensor2D,
  bias: tf.Tensor3D | undefined,
  temperature = 1,
): SequenceScores {
  if (!(temperature > 0)) throw new Error(`temperature must be > 0, got ${temperature}`);
  return tf.tidy(() => {
    const [b, t] = tokens.shape;
    const v = c.vocabSize;
    const h = hiddenStates(p, c, tokens);
    let logits = headLogits(p, c, h, tokens);
    if (temperature !== 1) logits = tf.div(logits, temperature);
    if (bias) {
      const shifted = tf.concat([tf.slice(bias, [0, 1, 0], [b, t - 1, v]), tf.zeros([b, 1, v])], 1);
      logits = tf.add(logits, tf.reshape(shifted, [b * t, v]));
    }
    const next = tf.reshape(tf.concat([tf.slice(tokens, [0, 1], [b, t - 1]), tf.zeros([b, 1], 'int32')], 1), [b * t]) as tf.Tensor1D;
    const scored = shiftRight(tf.reshape(tokenLogProbsAndEntropy(logits as tf.Tensor2D, next), [b, t, 2]));
    const values = shiftRight(tf.reshape(linear(h, param(p, 'value.w'), param(p, 'value.b')), [b, t]));
    const [logProbs, entropy] = tf.unstack(scored, 2) as [tf.Tensor2D, tf.Tensor2D];
    return { logProbs, entropy, values: values as tf.Tensor2D };
  });
}
