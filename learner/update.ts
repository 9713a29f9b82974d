/**
 * One gradient step on one minibatch: the objective of algorithms/objective.ts, the entropy
 * bonus, global-norm clipping and Adam. Every tensor lives inside `tf.tidy` / `variableGrads` or
 * is disposed here, so the number of live tensors does not grow across steps.
 *
 * Entropy. `objective` computes the bonus from full [B, T, V] logits; the transformer's scoring
 * pass already returns the per-token entropy of the same distribution (fused with the log-probs,
 * one softmax), so the bonus is taken from there and `objective` runs with entropyCoef 0.
 */
import * as tf from '@tensorflow/tfjs-core';
import { clipByGlobalNorm, maskedMean, objective, readScalars } from '../algorithms/index.ts';
import type { ScoringModel } from './scoring-model.ts';
import type { LearnerArgs } from './args.ts';
import type { PaddedRows } from './minibatch.ts';
import type { LearnerOptimizer } from './optimizer.ts';
import { scoreBatch } from './score.ts';

/** Per-row inputs of the minibatch (aligned with the tokens, 0 off-mask). */
export interface MinibatchFields {
  readonly mask: readonly ArrayLike<number>[];
  readonly oldLogProbs: readonly ArrayLike<number>[];
  readonly advantages: readonly ArrayLike<number>[];
  readonly refLogProbs?: readonly ArrayLike<number>[];
  readonly oldValues?: readonly ArrayLike<number>[];
  readonly returns?: readonly ArrayLike<number>[];
  /**
   * Asynchronous training: each token's truncated behaviour weight min(π_prox/π_behav, cap)
   * (algorithms/behaviour-weights.ts), with `oldLogProbs` then the proximal policy's. Absent in
   * synchronous training, where the loss is computed exactly as before.
   */
  readonly importanceWeights?: readonly ArrayLike<number>[];
}

/** One minibatch's gradients (keyed by variable name, the caller disposes them) and metrics. */
export interface MinibatchGrads {
  readonly grads: tf.NamedTensorMap;
  readonly metrics: Record<string, number>;
  /** Trained (mask-1) tokens: every loss term is a token-mean over them. */
  readonly maskTokens: number;
}

/** The objective's gradients on one padded minibatch, without touching the optimizer. */
export function minibatchGrads(model: ScoringModel, variables: tf.Variable[], padded: PaddedRows, fields: MinibatchFields, args: LearnerArgs): MinibatchGrads {
  const critic = args.algo === 'ppo';
  let metrics: Record<string, number> = {};
  const inputs = tf.tidy(() => ({
    mask: padded.field(fields.mask),
    oldLogProbs: padded.field(fields.oldLogProbs),
    advantages: padded.field(fields.advantages),
    ...(fields.refLogProbs && args.klCoef !== 0 ? { refLogProbs: padded.field(fields.refLogProbs) } : {}),
    ...(critic && fields.oldValues && fields.returns
      ? { oldValues: padded.field(fields.oldValues), returns: padded.field(fields.returns) }
      : {}),
    ...(fields.importanceWeights ? { importanceWeights: padded.field(fields.importanceWeights) } : {}),
  }));
  const { value, grads } = tf.variableGrads(() => {
    const s = scoreBatch(model, padded, { temperature: args.temperature, constrained: args.constrainedLoss });
    if (args.objective === 'cross-entropy') {
      // Behaviour cloning: the demonstrated tokens' negative log-likelihood, token-mean as RL's terms.
      const nll = tf.neg(maskedMean(s.logProbs, inputs.mask)) as tf.Scalar;
      metrics = { loss: nll.dataSync()[0]!, entropy: maskedMean(s.entropy, inputs.mask).dataSync()[0]! };
      return nll;
    }
    const terms = objective(
      {
        logProbs: s.logProbs,
        oldLogProbs: inputs.oldLogProbs,
        advantages: inputs.advantages,
        mask: inputs.mask,
        ...(inputs.refLogProbs ? { refLogProbs: inputs.refLogProbs } : {}),
        ...(inputs.oldValues && inputs.returns ? { values: s.values, oldValues: inputs.oldValues, returns: inputs.returns } : {}),
        ...(inputs.importanceWeights ? { importanceWeights: inputs.importanceWeights } : {}),
      },
      { clipRatio: args.clipRatio, klCoef: inputs.refLogProbs ? args.klCoef : 0, entropyCoef: 0, valueCoef: args.valueCoef },
    );
    const entropy = maskedMean(s.entropy, inputs.mask);
    const lossEntropy = tf.mul(-args.entropyCoef, entropy) as tf.Scalar;
    const loss = tf.add(terms.loss, lossEntropy) as tf.Scalar;
    metrics = { ...readScalars({ ...terms, entropy, lossEntropy, loss }) };
    return loss;
  }, variables);
  value.dispose();
  tf.dispose(Object.values(inputs));
  let maskTokens = 0;
  for (const row of fields.mask) for (let t = 0; t < row.length; t++) maskTokens += row[t] as number;
  return { grads, metrics, maskTokens };
}

/** Global-norm clipping and one Adam step; takes ownership of `grads`. A non-finite norm skips the step. */
export function applyGrads(optimizer: LearnerOptimizer, grads: tf.NamedTensorMap, args: LearnerArgs): { gradNorm: number; skipped: number } {
  const { grads: clipped, norm } = clipByGlobalNorm(grads, { maxNorm: args.maxGradNorm });
  tf.dispose(grads);
  // A non-finite gradient would poison Adam's moments for good: skip the step (as verl does).
  if (Number.isFinite(norm)) optimizer.apply(clipped);
  tf.dispose(clipped);
  return { gradNorm: norm, skipped: Number.isFinite(norm) ? 0 : 1 };
}

export function updateMinibatch(
  model: ScoringModel,
  optimizer: LearnerOptimizer,
  padded: PaddedRows,
  fields: MinibatchFields,
  args: LearnerArgs,
): Record<string, number> {
  const { grads, metrics } = minibatchGrads(model, optimizer.variables, padded, fields, args);
  return { ...metrics, ...applyGrads(optimizer, grads, args) };
}
