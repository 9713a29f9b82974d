/**
 * A Hugging Face causal LM as the learner's `ExternalScoring` (learner/scoring-model.ts): per-token
 * log-probs, entropies and (with a value head, PPO) values of right-padded rows, differentiable
 * w.r.t. the variables the model's weights reference (LoRA adapters, or every weight in full
 * fine-tuning). The output head's log-softmax runs over chunks of positions and each decoder
 * layer can be recomputed in the backward pass (policy/hf/train/), so 2–4k-token rows fit.
 */
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';
import { hfSequenceScores, type ValueHead } from '../../policy/hf/train/index.ts';
import type { ExternalScoring } from '../scoring-model.ts';

export interface HfScoringOptions {
  readonly positionChunk: number;
  readonly recompute: boolean;
  /** PPO's critic; values are 0 without it. */
  readonly valueHead?: ValueHead;
}

export function hfScoring(model: HfCausalLm, options: HfScoringOptions): ExternalScoring {
  return {
    kind: 'external',
    scores: (tokens, { temperature }) => hfSequenceScores(model, tokens, {
      temperature, positionChunk: options.positionChunk, recompute: options.recompute ? 'layers' : 'none',
      ...(options.valueHead ? { valueHead: options.valueHead } : {}),
    }),
  };
}
