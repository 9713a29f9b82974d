/**
 * Per-sequence key/value caches for incremental decoding. Each sequence owns its tensors, so
 * episodes can join and leave the batch between turns; a batch pads them to a common length
 * when it is assembled (prefill.ts, decode-batch.ts).
 *
 * Ownership: functions that take caches never dispose them and always return new tensors; the
 * caller disposes a cache it has replaced (`disposeCache`).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { InstructionState } from './instruction-copy.ts';

export interface LayerCache {
  /** Keys [H, L, dh]. */
  readonly k: tf.Tensor3D;
  /** Values [H, L, dh]. */
  readonly v: tf.Tensor3D;
}

export interface SequenceCache {
  /** Tokens held (L). */
  readonly length: number;
  readonly layers: readonly LayerCache[];
  /** The sequence's instruction as read so far, for `instructionCopy` models (instruction-copy.ts). */
  readonly instruction?: InstructionState;
}

export function disposeCache(cache: SequenceCache | undefined): void {
  if (cache === undefined) return;
  for (const l of cache.layers) {
    l.k.dispose();
    l.v.dispose();
  }
}

/** Caches of several sequences, one layer, zero-padded to `length` → [n·H, length, dh]. */
export function padCaches(
  caches: readonly (SequenceCache | undefined)[], layer: number, which: 'k' | 'v', length: number, heads: number, headDim: number,
): tf.Tensor3D {
  return tf.tidy(() => {
    const rows = caches.map((c) => {
      const t = c?.layers[layer]?.[which];
      if (t === undefined || c === undefined || c.length === 0) return tf.zeros([heads, length, headDim]);
      return c.length === length ? t : tf.pad(t, [[0, 0], [0, length - c.length], [0, 0]]);
    });
    return tf.reshape(tf.concat(rows, 0), [caches.length * heads, length, headDim]) as tf.Tensor3D;
  });
}

/** Additive mask [n, 1, 1, length]: 0 on the first `lengths[i]` keys of row i, NEG_INF after. */
export function lengthMask(lengths: readonly number[], length: number, negInf: number): tf.Tensor4D {
  const m = new Float32Array(lengths.length * length);
  lengths.forEach((len, i) => m.fill(negInf, i * length + len, (i + 1) * length));
  return tf.tensor4d(m, [lengths.length, 1, 1, length]);
}

/** Total bytes held by a cache (for metrics and limits). */
export const cacheBytes = (c: SequenceCache): number => c.layers.reduce((a, l) => a + 4 * (l.k.size + l.v.size), 0);
