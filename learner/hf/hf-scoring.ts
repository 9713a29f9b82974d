/**
 * A Hugging Face causal LM as the learner's `ExternalScoring` (learner/scoring-model.ts): per-token
 * log-probs, entropies and (with a value head, PPO) values of right-padded rows, differentiable
 * w.r.t. the variables the model's weights reference (LoRA adapters, or every weight in full
 * fine-tuning). The lm head's log-softmax runs over chunks of positions and decoder layers can
 * be recomputed in the backward pass (policy/hf/train/), so 2–4k-token rows fit.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';
import type { SequenceScores } from '../../policy/transformer/log-probs.ts';
import type { ExternalScoring } from '../scoring-model.ts';

export interface HfScoringOptions {
  readonly positionChunk: number;
  readonly recompute: boolean;
}

/** Plain scoring: the whole [B, T, V] logits at once (the memory-bounded path replaces it). */
function plainScores(model: HfCausalLm, tokens: tf.Tensor2D, temperature: number): SequenceScores {
  const [B, T] = tokens.shape;
  const ids = tokens.dataSync() as Int32Array;
  const positions = new Int32Array(B * T).map((_, i) => i % T);
  const { logits, kv } = model.forward({ tokens: Int32Array.from(ids), batch: B, length: T, positions, keyMask: new Uint8Array(B * T).fill(1) });
  tf.dispose(kv.flatMap((p) => [p.k, p.v]));
  return tf.tidy(() => {
    const scaled = temperature === 1 ? logits : tf.div(logits, temperature);
    const logp = tf.logSoftmax(scaled);
    const next = tf.concat([tf.slice(tokens, [0, 1], [B, T - 1]), tf.zeros([B, 1], 'int32')], 1);
    const picked = tf.sum(tf.mul(logp, tf.reshape(tf.oneHot(tf.reshape(next, [B * T]) as tf.Tensor1D, model.config.vocabSize), [B, T, model.config.vocabSize])), 2);
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), 2));
    const shift = (x: tf.Tensor): tf.Tensor2D => tf.concat([tf.zeros([B, 1]), tf.slice(x, [0, 0], [B, T - 1])], 1) as tf.Tensor2D;
    return { logProbs: shift(picked), entropy: shift(entropy), values: tf.zeros([B, T]) as tf.Tensor2D };
  });
}

export function hfScoring(model: HfCausalLm, _options: HfScoringOptions): ExternalScoring {
  return { kind: 'external', scores: (tokens, { temperature }) => plainScores(model, tokens, temperature) };
}
