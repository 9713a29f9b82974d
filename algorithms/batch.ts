/**
 * The training batch layout shared by every estimator and loss in `algorithms/`.
 *
 * A batch is B sequences padded to T tokens, stored row-major as flat arrays of length B·T
 * (element `[b, t]` lives at `b * T + t`). Each sequence is one whole trajectory:
 *
 * ```
 * [instruction] [obs 0] <act> a0 … </act> [obs 1] <act> a1 … </act> … [obs N] [padding]
 * mask:  0 …  0   0 … 0   1   1 …   1      0 … 0   1   1 …   1      0 … 0   0 … 0
 * ```
 *
 * The mask is 1 on the agent's own tokens (including the closing `</act>`), 0 on instruction,
 * observation and padding tokens. Advantage estimation runs on the host in plain TS (it is
 * cheap); the losses take `tf.Tensor`s built from these arrays with {@link toTensor2d}.
 */
import * as tf from '@tensorflow/tfjs-core';
import { AlgorithmError } from './algorithm-error.ts';

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** Group key: sequences with the same id are the G rollouts of one task. */
export type GroupId = string | number;

/** A full training batch, as the learner assembles it from a rollout group. */
export type TrainingBatch = {
  /** B: number of sequences. */
  batchSize: number;
  /** T: padded sequence length. */
  seqLen: number;
  /** [B·T] token ids. */
  tokens: ArrayLike<number>;
  /** [B·T] 1 on agent tokens (incl. the closing end-of-action token), 0 elsewhere. */
  mask: ArrayLike<number>;
  /** [B·T] log-probs of the sampled tokens under the sampling policy, 0 off-mask. */
  oldLogProbs: ArrayLike<number>;
  /** [B·T] log-probs of the same tokens under the frozen reference policy. */
  refLogProbs: ArrayLike<number>;
  /** [B·T] critic values at each position (PPO only). */
  values?: ArrayLike<number>;
  /** [B] outcome reward of each sequence. */
  rewards: ArrayLike<number>;
  /** [B] task group of each sequence. */
  groupIds: ArrayLike<GroupId>;
};

/** What the advantage estimators read: a {@link TrainingBatch} without the tokens. */
export type AdvantageInput = Pick<TrainingBatch, 'batchSize' | 'seqLen' | 'mask' | 'rewards' | 'groupIds'> &
  Partial<Pick<TrainingBatch, 'values' | 'oldLogProbs' | 'refLogProbs'>>;

/** Output of every estimator: [B·T] each, 0 off-mask. */
export type AdvantageResult = {
  advantages: Float32Array;
  returns: Float32Array;
};

// The error type lives apart (algorithm-error.ts) so the names can be checked without TensorFlow.js.
export { AlgorithmError, type AlgorithmErrorCode } from './algorithm-error.ts';

// ---------------------------------------------------------------------------------------------
// Checks and helpers
// ---------------------------------------------------------------------------------------------

/** Throws `ALGO_BAD_BATCH` unless every field has the length the layout says. */
export function checkBatch(batch: AdvantageInput): void {
  const { batchSize: B, seqLen: T } = batch;
  if (!Number.isInteger(B) || !Number.isInteger(T) || B < 0 || T < 0) {
    throw new AlgorithmError('ALGO_BAD_BATCH', `batchSize and seqLen must be integers ≥ 0, got ${B} and ${T}`);
  }
  const checkLength = (name: string, data: ArrayLike<unknown> | undefined, length: number): void => {
    if (data !== undefined && data.length !== length) {
      throw new AlgorithmError('ALGO_BAD_BATCH', `${name} has length ${data.length}, expected ${length}`);
    }
  };
  checkLength('mask', batch.mask, B * T);
  checkLength('values', batch.values, B * T);
  checkLength('oldLogProbs', batch.oldLogProbs, B * T);
  checkLength('refLogProbs', batch.refLogProbs, B * T);
  checkLength('rewards', batch.rewards, B);
  checkLength('groupIds', batch.groupIds, B);
  for (let i = 0; i < B * T; i++) {
    const m = batch.mask[i];
    if (m !== 0 && m !== 1) throw new AlgorithmError('ALGO_BAD_BATCH', `mask[${i}] is ${m}, expected 0 or 1`);
  }
}

/** The indices of the sequences in each group, in order of first appearance. */
export function groupIndices(groupIds: ArrayLike<GroupId>): Map<GroupId, number[]> {
  const groups = new Map<GroupId, number[]>();
  for (let i = 0; i < groupIds.length; i++) {
    const id = groupIds[i] as GroupId;
    const members = groups.get(id);
    if (members) members.push(i);
    else groups.set(id, [i]);
  }
  return groups;
}

/** Spreads one scalar per sequence over that sequence's agent tokens: out[b,t] = perSeq[b]·mask[b,t]. */
export function broadcastOverAgentTokens(perSeq: ArrayLike<number>, batch: AdvantageInput): Float32Array {
  const { batchSize: B, seqLen: T } = batch;
  const out = new Float32Array(B * T);
  for (let b = 0; b < B; b++) {
    const value = perSeq[b] as number;
    for (let t = 0; t < T; t++) if (batch.mask[b * T + t] === 1) out[b * T + t] = value;
  }
  return out;
}

/** Row b of a flat [B·T] field, as a plain array. */
export function rowOf(data: ArrayLike<number>, b: number, seqLen: number): number[] {
  const row = new Array<number>(seqLen);
  for (let t = 0; t < seqLen; t++) row[t] = data[b * seqLen + t] as number;
  return row;
}

/** A [B, T] tensor from a flat row-major field of the batch. */
export function toTensor2d(
  batch: Pick<TrainingBatch, 'batchSize' | 'seqLen'>,
  data: ArrayLike<number>,
  dtype: 'float32' | 'int32' = 'float32',
): tf.Tensor2D {
  const values = data instanceof Float32Array || data instanceof Int32Array ? data : Float32Array.from(data);
  return tf.tensor2d(values, [batch.batchSize, batch.seqLen], dtype);
}
