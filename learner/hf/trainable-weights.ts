/** TEMPORARY until policy/hf/train lands: full fine-tuning's trainable weights. */
import type * as tf from '@tensorflow/tfjs-core';
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';

export interface TrainableWeights {
  readonly model: HfCausalLm;
  readonly variables: Map<string, tf.Variable>;
  /** Copies of the current weights under transformers' names (the caller disposes them). */
  snapshot(): Record<string, tf.Tensor>;
  dispose(): void;
}

export function trainableWeights(_model: HfCausalLm): TrainableWeights {
  throw new Error('full fine-tuning is not wired yet');
}
