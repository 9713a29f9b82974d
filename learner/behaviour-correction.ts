/**
 * Asynchronous training's behaviour-policy correction, per training row (decoupled PPO with
 * truncated importance weights: algorithms/behaviour-weights.ts says which variant and why).
 *
 * For a row sampled by older weights (stale):
 *   old (the clipped ratio's denominator) = π_prox, the learner's own scores before the step's
 *   updates, on the distribution the loss trains (constrained or full vocabulary);
 *   w = min(π_prox/π_behav, importanceCap), with π_behav the sampler's log-probs on the same
 *   distribution.
 * For a row sampled by the learner's current weights (staleness 0), π_behav = π_prox in exact
 * arithmetic: the row keeps the synchronous path's old log-probs and w = 1 exactly, so a step
 * with no stale row is bit-identical to synchronous training (the recorded and rescored numbers
 * differ only by float rounding between the decode and scoring kernels).
 *
 * Same footing. The transformer records two log-probs per sampled token (policy/sampling.ts):
 * `logProbs` over the full vocabulary and `sampledLogProbs` over the allowed tokens it was drawn
 * from. With `constrainedLoss` the proximal scores are constrained, so π_behav must be the
 * constrained one too: π_c = π/Z with Z the allowed tokens' mass, and Z_behav ≠ Z_prox once the
 * weights moved, so a full-vocabulary ratio would be off by Z_behav/Z_prox. Without
 * `constrainedLoss` both sides are full-vocabulary (and an LLM's reply is never constrained).
 */
import { behaviourWeights } from '../algorithms/behaviour-weights.ts';
import type { TrainingRow } from './rows.ts';

export interface BehaviourCorrection {
  /** Per row: the clipped ratio's old log-probs. */
  readonly oldLogProbs: readonly ArrayLike<number>[];
  /** Per row: w per token (1 on a fresh row's agent tokens), 0 off-mask. */
  readonly importanceWeights: readonly ArrayLike<number>[];
  /** `importanceWeight` (mean w over the step's agent tokens) and `importanceTruncated` (share cut to the cap). */
  readonly metrics: { readonly importanceWeight: number; readonly importanceTruncated: number };
}

export interface CorrectionInput {
  readonly rows: readonly TrainingRow[];
  /** Per row: whether older weights sampled it. */
  readonly stale: readonly boolean[];
  /** The synchronous path's old log-probs per row (recorded, or own with constrainedLoss). */
  readonly synchronousOld: readonly ArrayLike<number>[];
  /** The learner's own scores per row, before any update; needed when a row is stale. */
  readonly prox: readonly ArrayLike<number>[] | undefined;
  readonly constrained: boolean;
  readonly importanceCap: number;
}

/** The sampler's log-probs of a row on the distribution the loss trains. */
function behaviourOf(row: TrainingRow, constrained: boolean, index: number): readonly number[] {
  if (!constrained) return row.oldLogProbs;
  if (row.sampledLogProbs === undefined) {
    throw new Error(
      `asynchronous training with constrainedLoss needs the sampler's constrained log-probs: row ${index} has no sampledLogProbs ` +
      '(its policy recorded only full-vocabulary logProbs); train synchronously, or with constrainedLoss off',
    );
  }
  return row.sampledLogProbs;
}

export function behaviourCorrection(input: CorrectionInput): BehaviourCorrection {
  const { rows, stale, synchronousOld, prox, constrained, importanceCap } = input;
  let tokens = 0;
  let weightSum = 0;
  let truncated = 0;
  const oldLogProbs: ArrayLike<number>[] = [];
  const importanceWeights: ArrayLike<number>[] = [];
  rows.forEach((row, i) => {
    if (!stale[i]) {
      const ones = Float32Array.from(row.mask);
      const n = ones.reduce((a, b) => a + b, 0);
      oldLogProbs.push(synchronousOld[i]!);
      importanceWeights.push(ones);
      tokens += n;
      weightSum += n;
      return;
    }
    if (prox === undefined) throw new Error('behaviourCorrection: a stale row needs the learner\'s own scores (prox)');
    const w = behaviourWeights(prox[i]!, behaviourOf(row, constrained, i), row.mask, importanceCap);
    oldLogProbs.push(prox[i]!);
    importanceWeights.push(w.weights);
    tokens += w.tokens;
    weightSum += w.weightSum;
    truncated += w.truncated;
  });
  const per = (x: number) => (tokens > 0 ? x / tokens : 0);
  return { oldLogProbs, importanceWeights, metrics: { importanceWeight: tokens > 0 ? per(weightSum) : 1, importanceTruncated: per(truncated) } };
}
