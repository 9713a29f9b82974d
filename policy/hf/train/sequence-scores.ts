/**
 * The learner's scores (policy/transformer/log-probs.ts `SequenceScores`) for a Hugging Face
 * causal LM, differentiable w.r.t. every trainable tf.Variable the model's weights reference
 * (LoRA adapters, or all weights after `trainableWeights`) and the value head, and memory-bounded
 * for sequences of thousands of tokens:
 *  - the output head, log-softmax and entropy run over `positionChunk` positions at a time and
 *    are recomputed in the backward pass (chunked-token-scores.ts), so [B, T, vocab] never exists;
 *  - attention runs over blocks of `attentionBlock` query positions with a custom gradient that
 *    recomputes each block's probabilities (chunked-attention.ts), so no [heads, T, T] exists;
 *  - with `recompute: 'layers'` each decoder layer keeps only its input for the backward pass
 *    (checkpointed-layer.ts).
 *
 * Alignment as in the transformer: index t describes the choice of tokens[t] from tokens[<t];
 * index 0 holds 0 in logProbs, entropy and values. Rows may be right-padded.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfCausalLm } from '../causal-lm.ts';
import { tidyResult } from '../tidy.ts';
import type { SequenceScores } from '../../transformer/log-probs.ts';
import { chunkedTokenScores } from './chunked-token-scores.ts';
import { normedHiddenStates, type Recompute } from './hidden-states.ts';
import { valuesOf, type ValueHead } from './value-head.ts';

export interface HfScoreOptions {
  /** Divides the logits before the softmax; use the temperature the rollouts sampled with. */
  readonly temperature: number;
  /** PPO's critic on the final-normed hidden state; values are 0 without it. */
  readonly valueHead?: ValueHead;
  /** Positions per chunk of the output head (default 128): the peak is [B · chunk, vocab]. */
  readonly positionChunk?: number;
  /** Query positions per attention block (default 256): the peak is [B · heads · block, T]. */
  readonly attentionBlock?: number;
  /** 'layers': recompute each decoder layer in the backward pass instead of keeping it (default 'none'). */
  readonly recompute?: Recompute;
}

export const DEFAULT_POSITION_CHUNK = 128;
export const DEFAULT_ATTENTION_BLOCK = 256;

function checkOptions(tokens: tf.Tensor, options: HfScoreOptions): void {
  if (!(options.temperature > 0)) throw new Error(`hfSequenceScores: options.temperature must be > 0, got ${options.temperature}`);
  for (const field of ['positionChunk', 'attentionBlock'] as const) {
    const n = options[field];
    if (n !== undefined && !(Number.isInteger(n) && n >= 1)) throw new Error(`hfSequenceScores: options.${field} must be a positive integer, got ${n}`);
  }
  if (options.recompute !== undefined && options.recompute !== 'none' && options.recompute !== 'layers') {
    throw new Error(`hfSequenceScores: options.recompute must be 'none' or 'layers', got ${String(options.recompute)}`);
  }
  if (tokens.rank !== 2 || tokens.dtype !== 'int32') throw new Error(`hfSequenceScores: tokens must be int32 [B, T], got ${tokens.dtype} [${tokens.shape.join(', ')}]`);
}

/** Prepends a zero column: [B, T − 1] → [B, T]. */
function shiftIn(x: tf.Tensor2D): tf.Tensor2D {
  return tf.concat<tf.Tensor2D>([tf.zeros([x.shape[0], 1]), x], 1);
}

export function hfSequenceScores(model: HfCausalLm, tokens: tf.Tensor2D, options: HfScoreOptions): SequenceScores {
  checkOptions(tokens, options);
  const [B, T] = tokens.shape;
  return tidyResult((): SequenceScores => {
    const hidden = normedHiddenStates(model, tokens, options.recompute ?? 'none', options.attentionBlock ?? DEFAULT_ATTENTION_BLOCK);
    const H = hidden.shape[2];
    const values = options.valueHead === undefined || T < 2
      ? tf.zeros<tf.Rank.R2>([B, T])
      : shiftIn(tf.slice(valuesOf(options.valueHead, hidden), [0, 0], [B, T - 1]));
    if (T < 2) return { logProbs: tf.zeros<tf.Rank.R2>([B, T]), entropy: tf.zeros<tf.Rank.R2>([B, T]), values };
    // Row t of the states predicts tokens[t + 1].
    const scored = chunkedTokenScores(tf.slice(hidden, [0, 0, 0], [B, T - 1, H]), model.weights.lmHead, tf.slice(tokens, [0, 1], [B, T - 1]), {
      temperature: options.temperature,
      chunk: options.positionChunk ?? DEFAULT_POSITION_CHUNK,
    });
    const [logProbs, entropy] = tf.split(scored, 2, 2).map((s) => shiftIn(tf.reshape(s, [B, T - 1]) as tf.Tensor2D));
    return { logProbs: logProbs!, entropy: entropy!, values };
  });
}
