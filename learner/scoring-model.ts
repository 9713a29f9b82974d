/**
 * What the learner scores and differentiates: our transformer (constrained scoring, a value head,
 * data-parallel workers), or any other model that gives the same per-token `SequenceScores`
 * (a Hugging Face causal LM with LoRA adapters or trainable weights, actors/training/hf/). The
 * learner's maths (rows, advantages, objectives, chunked gradients, Adam) does not care which.
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { SequenceScores } from '../policy/transformer/log-probs.ts';
import { Transformer } from '../policy/transformer/transformer.ts';

/** A model scored through its own function: free-form (full-vocabulary) scoring only. */
export interface ExternalScoring {
  readonly kind: 'external';
  /** Differentiable scores of right-padded int32 rows [B, T] (policy/transformer/log-probs.ts alignment). */
  scores(tokens: tf.Tensor2D, options: { readonly temperature: number }): SequenceScores;
}

export type ScoringModel = Transformer | ExternalScoring;

export const isTransformer = (model: ScoringModel): model is Transformer => model instanceof Transformer;
