/**
 * Scoring without gradients, once per learner step and before any update: the learner's own
 * log-probs of the sampled tokens (the "old" policy of the PPO ratio: on-policy, the learner's
 * weights are the ones the rollouts sampled with; asynchronous, the proximal policy of
 * behaviour-correction.ts) and its critic's values, and the frozen
 * reference policy's log-probs (for the k3 KL). Constrained scoring (allowed tokens only) unless
 * turned off. Rows go through in chunks so the [B, T, V] logits stay small, grouped by length so
 * each chunk pads little.
 */
import * as tf from '@tensorflow/tfjs-core';
import { isTransformer, type ScoringModel } from './scoring-model.ts';
import { constrainedLogProbsOf } from '../policy/transformer/constrained-log-probs.ts';
import type { SequenceScores } from '../policy/transformer/log-probs.ts';
import type { AllowedTokens } from './allowed-tokens.ts';
import { byLength } from './by-length.ts';
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
export function scoreBatch(model: ScoringModel, padded: PaddedRows, options: ScoreOptions): SequenceScores {
  const tokens = padded.tokens();
  if (!isTransformer(model)) {
    if (options.constrained) throw new Error('constrained scoring needs our transformer; score this model with constrainedLoss off');
    return model.scores(tokens, { temperature: options.temperature });
  }
  if (!options.constrained) return model.logProbsOf(tokens, { temperature: options.temperature });
  return constrainedLogProbsOf(model.params, model.config, tokens, padded.bias(model.config.vocabSize), options.temperature);
}

export async function scoreRows(
  model: ScoringModel,
  rows: readonly { readonly tokens: readonly number[]; readonly allowed?: AllowedTokens }[],
  options: ScoreOptions & { readonly chunk?: number },
): Promise<RowScores> {
  const chunk = options.chunk ?? 32;
  const logProbs: Float32Array[] = new Array(rows.length);
  const values: Float32Array[] = new Array(rows.length);
  // Chunks of rows of similar length, so each pads less; results go back to the rows' order.
  const order = byLength(rows.map((r) => r.tokens.length));
  for (let start = 0; start < order.length; start += chunk) {
    const idx = order.slice(start, start + chunk);
    const part = idx.map((i) => rows[i]!);
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
      logProbs[idx[b]!] = lpData.slice(at, at + row.tokens.length);
      values[idx[b]!] = vData.slice(at, at + row.tokens.length);
    });
  }
  return { logProbs, values };
}
