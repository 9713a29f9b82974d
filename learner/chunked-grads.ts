/**
 * A minibatch's gradients computed over chunks of rows of similar length, recombined exactly.
 *
 * Why: a padded batch pays for its longest row. BabyAI's training windows run from about 40 to
 * 130 tokens, and in arrival order 40 % of the learner's padded positions were padding (141k real
 * tokens in 233k positions at horizon 6, 382k in 668k at horizon 20). Rows are independent under
 * the causal mask and every loss term is a token-mean over the trained (mask-1) tokens, so the
 * minibatch's gradient is the chunks' gradients weighted by their shares of those tokens: the
 * same maths as one pass, up to float32 summation order (data-parallel.ts combines its two
 * halves the same way).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ScoringModel } from './scoring-model.ts';
import type { AllowedTokens } from './allowed-tokens.ts';
import { byLength } from './by-length.ts';
import type { LearnerArgs } from './args.ts';
import { padRows } from './minibatch.ts';
import { minibatchGrads, type MinibatchFields, type MinibatchGrads } from './update.ts';

type Row = { readonly tokens: readonly number[]; readonly allowed?: AllowedTokens };

/**
 * What one more forward/backward pass costs, in padded token positions: its fixed kernel-dispatch
 * work. Measured on tfjs-wasm (docs/benchmarks.md, learner-step): a pass of the npm-start model
 * costs about as much as this many extra positions.
 */
export const CHUNK_OVERHEAD_POSITIONS = 96;

/**
 * Chunks of row indices (each in ascending length) that minimise the padded positions plus
 * `overhead` per chunk: an exact dynamic programme over the rows sorted by length.
 */
export function lengthChunks(lengths: readonly number[], overhead = CHUNK_OVERHEAD_POSITIONS): number[][] {
  const order = byLength(lengths);
  const n = order.length;
  if (n === 0) return [];
  const best = new Float64Array(n + 1).fill(Infinity);
  const from = new Int32Array(n + 1);
  best[0] = 0;
  for (let j = 1; j <= n; j++) {
    const longest = lengths[order[j - 1]!]!;
    for (let i = 0; i < j; i++) {
      const cost = best[i]! + (j - i) * longest + overhead;
      if (cost < best[j]!) {
        best[j] = cost;
        from[j] = i;
      }
    }
  }
  const chunks: number[][] = [];
  for (let j = n; j > 0; j = from[j]!) chunks.unshift(order.slice(from[j]!, j));
  return chunks;
}

/** The fields of rows `idx`, in that order. */
export function pickFields(f: MinibatchFields, idx: readonly number[]): MinibatchFields {
  const pick = <T>(xs: readonly T[]): T[] => idx.map((i) => xs[i]!);
  return {
    mask: pick(f.mask),
    oldLogProbs: pick(f.oldLogProbs),
    advantages: pick(f.advantages),
    ...(f.refLogProbs ? { refLogProbs: pick(f.refLogProbs) } : {}),
    ...(f.oldValues ? { oldValues: pick(f.oldValues) } : {}),
    ...(f.returns ? { returns: pick(f.returns) } : {}),
    ...(f.importanceWeights ? { importanceWeights: pick(f.importanceWeights) } : {}),
  };
}

/**
 * Token-weighted sum of parts' gradients and metrics; takes ownership of the parts' gradients.
 * A part with no trained token has a zero loss and zero gradients: its weight is 0.
 */
export function combineParts(variables: readonly tf.Variable[], parts: readonly MinibatchGrads[]): MinibatchGrads {
  const total = parts.reduce((a, p) => a + p.maskTokens, 0);
  const weights = parts.map((p, i) => (total > 0 ? p.maskTokens / total : i === 0 ? 1 : 0));
  const grads: tf.NamedTensorMap = {};
  try {
    tf.tidy(() => {
      for (const v of variables) {
        let sum: tf.Tensor | undefined;
        parts.forEach((p, i) => {
          const g = p.grads[v.name];
          if (g === undefined) throw new Error(`no gradient for parameter ${v.name}`);
          const term = tf.mul(g, weights[i]!);
          sum = sum === undefined ? term : tf.add(sum, term);
        });
        grads[v.name] = tf.keep(sum!);
      }
    });
  } finally {
    for (const p of parts) tf.dispose(p.grads);
  }
  const metrics: Record<string, number> = {};
  for (const k of new Set(parts.flatMap((p) => Object.keys(p.metrics)))) {
    metrics[k] = parts.reduce((a, p, i) => a + weights[i]! * (p.metrics[k] ?? 0), 0);
  }
  return { grads, metrics, maskTokens: total };
}

/** `minibatchGrads` over length chunks of `rows` (one pass when one chunk is cheapest). */
export function chunkedGrads(model: ScoringModel, variables: tf.Variable[], rows: readonly Row[], fields: MinibatchFields, args: LearnerArgs): MinibatchGrads {
  const chunks = lengthChunks(rows.map((r) => r.tokens.length));
  if (chunks.length <= 1) return minibatchGrads(model, variables, padRows(rows), fields, args);
  const parts: MinibatchGrads[] = [];
  try {
    for (const idx of chunks) parts.push(minibatchGrads(model, variables, padRows(idx.map((i) => rows[i]!)), pickFields(fields, idx), args));
  } catch (error) {
    for (const p of parts) tf.dispose(p.grads);
    throw error;
  }
  return combineParts(variables, parts);
}
