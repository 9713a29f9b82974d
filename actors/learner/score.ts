/**
 * Scoring without gradients, once per learner step and before any update: the learner's own
 * log-probs of the sampled tokens (the "old" policy of the PPO ratio: on-policy, the learner's
 * weights are the ones the rollouts sampled with) and its critic's values, and the frozen
 * reference policy's log-probs (for the k3 KL). Constrained scoring (allowed tokens only) unless
 * turned off. Rows go through in chunks so the [B, T, V] logits stay small.
 */
import * as tf from '@tensorflow/tfjs';
import type { Transformer } from '../../policy/transformer/transformer.ts';
import { constrainedLogProbsOf } from '../../policy/transformer/constrained-log-probs.ts';
import type { SequenceScores } from '../../policy/transformer/log-probs.ts';
import type { AllowedTokens } from './allowed-tokens.ts';
import { padRows, type PaddedRows } from './minibatch.ts';

export interface RowScores {
  readonly logProbs: readonly Float32Array[];
  readonly values: readonly Float32Array[];
}

export interface ScoreOptions {
  readonly temperature: number;
  /** Score the constrained distribution (default true). */
  readonly constrained: boolean;
}

/** Differentiable scores of a padded minibatch; call inside a tidy or variableGrads. */
export function scoreBatch(model: Transformer, padded: PaddedRows, options: ScoreOptions): SequenceScores {
  const tokens = padded.tokens();
  if (!options.constrained) return model.logProbsOf(tokens, { temperature: options.temperature });
  return constrainedLogProbsOf(model.params, model.config, tokens, padded.bias(model.config.vocabSize), options.temperature);
}

export async function scoreRows(
  model: Transformer,
  rows: readonly { readonly tokens: readonly number[]; readonly allowed?: AllowedTokens }[],
  options: ScoreOptions & { readonly chunk?: number },
): Promise<RowScores> {
  const chunk = options.chunk ?? 32;
  const logProbs: Float32Array[] = [];
  const values: Float32Array[] = [];
  for (let start = 0; start < rows.length; start += chunk) {
    const part = rows.slice(start, start + chunk);
    const padded = padRows(part);
    const [lp, v] = tf.tidy(() => {
      const s = scoreBatch(model, padded, options);
      return [s.logProbs, s.values];
    });
    const [lpData, vData] = await Promise.all([lp.data() as Promise<Float32Array>, v.data() as Promise<Float32Array>]);
    lp.dispose();
    v.dispose();
    part.forEach((row, b) => {
      const at = b * padded.seqLen;
      logProbs.push(lpData.slice(at, at + row.tokens.length));
      values.push(vData.slice(at, at + row.tokens.length));
    });
  }
  return { logProbs, values };
}
