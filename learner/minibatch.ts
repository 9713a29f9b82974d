/**
 * Rows padded into [B, T] tensors for one forward/backward pass. T is the longest row of the
 * minibatch (not the model's context), so short BabyAI windows do not pay for padding; padding is
 * `<pad>` with mask 0, which only affects itself under the causal mask.
 */
import * as tf from '@tensorflow/tfjs-core';
import { PAD_ID } from '../policy/special-tokens.ts';
import { DISALLOWED } from '../policy/transformer/constrained-log-probs.ts';
import type { AllowedTokens } from './allowed-tokens.ts';

export interface PaddedRows {
  readonly batchSize: number;
  readonly seqLen: number;
  /** Real (non-pad) tokens. */
  readonly tokenCount: number;
  /** [B, T] int32 token ids. */
  tokens(): tf.Tensor2D;
  /** [B, T] float32 of a per-row field, 0 in the padding. */
  field(perRow: readonly ArrayLike<number>[]): tf.Tensor2D;
  /**
   * [B, T, V] logit bias of the constrained distribution (constrained-log-probs.ts): 0 on allowed
   * tokens, DISALLOWED on the others, 0 everywhere at unconstrained positions; undefined when no
   * position is constrained.
   */
  bias(vocabSize: number): tf.Tensor3D | undefined;
}

export function padRows(rows: readonly { readonly tokens: readonly number[]; readonly allowed?: AllowedTokens }[]): PaddedRows {
  const batchSize = rows.length;
  const seqLen = Math.max(2, ...rows.map((r) => r.tokens.length));
  const tokenCount = rows.reduce((a, r) => a + r.tokens.length, 0);
  return {
    batchSize,
    seqLen,
    tokenCount,
    tokens: () => {
      const ids = new Int32Array(batchSize * seqLen).fill(PAD_ID);
      rows.forEach((r, b) => ids.set(r.tokens, b * seqLen));
      return tf.tensor2d(ids, [batchSize, seqLen], 'int32');
    },
    field: (perRow) => {
      const data = new Float32Array(batchSize * seqLen);
      perRow.forEach((values, b) => data.set(values, b * seqLen));
      return tf.tensor2d(data, [batchSize, seqLen], 'float32');
    },
    bias: (v) => {
      if (!rows.some((r) => r.allowed?.some((a) => a !== undefined))) return undefined;
      const data = new Float32Array(batchSize * seqLen * v);
      rows.forEach((r, b) => r.allowed?.forEach((ids, t) => {
        if (ids === undefined) return;
        const at = (b * seqLen + t) * v;
        data.fill(DISALLOWED, at, at + v);
        for (const id of ids) data[at + id] = 0;
      }));
      return tf.tensor3d(data, [batchSize, seqLen, v], 'float32');
    },
  };
}
