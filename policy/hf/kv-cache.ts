/**
 * The decoding state of a left-padded batch: each layer's keys and values for every column so
 * far, which columns are real tokens, and each row's next RoPE position. Rows that finish are
 * dropped (`keepRows`), so later steps compute only the live sequences.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { KvPair } from './attention.ts';
import type { ForwardBatch } from './causal-lm.ts';

export class KvCache {
  constructor(
    /** Per layer, [rows, kvHeads, columns, headDim]. */
    private layers: KvPair[],
    /** [rows × columns]: 1 for a real token, 0 for padding. */
    private keyMask: Uint8Array,
    /** [rows]: the position the next token of each row takes. */
    private nextPositions: Int32Array,
  ) {}

  /** The cache after a prefill of `batch` (takes ownership of `kv`). */
  static afterPrefill(batch: ForwardBatch, kv: KvPair[]): KvCache {
    const next = new Int32Array(batch.batch);
    for (let b = 0; b < batch.batch; b++) {
      let n = 0;
      for (let t = 0; t < batch.length; t++) n += batch.keyMask[b * batch.length + t]!;
      next[b] = n;
    }
    return new KvCache(kv, batch.keyMask.slice(), next);
  }

  get rows(): number {
    return this.nextPositions.length;
  }

  get columns(): number {
    return this.keyMask.length / this.rows;
  }

  get past(): readonly KvPair[] {
    return this.layers;
  }

  /** The one-column batch that feeds `tokens` (one per row) after the cached columns. */
  nextStep(tokens: readonly number[]): ForwardBatch {
    if (tokens.length !== this.rows) throw new Error(`KvCache.nextStep: ${tokens.length} tokens for ${this.rows} rows`);
    const S = this.columns;
    const keyMask = new Uint8Array(this.rows * (S + 1));
    for (let r = 0; r < this.rows; r++) {
      keyMask.set(this.keyMask.subarray(r * S, (r + 1) * S), r * (S + 1));
      keyMask[r * (S + 1) + S] = 1;
    }
    return { tokens: Int32Array.from(tokens), batch: this.rows, length: 1, positions: this.nextPositions.slice(), keyMask };
  }

  /** Replaces the cache with the forward result of `nextStep` (takes ownership of `kv`). */
  advance(step: ForwardBatch, kv: KvPair[]): void {
    tf.dispose(this.layers.flatMap((l) => [l.k, l.v]));
    this.layers = kv;
    this.keyMask = step.keyMask;
    this.nextPositions = this.nextPositions.map((p) => p + 1);
  }

  /** Keeps only `rows` (indices into the current rows, ascending). */
  keepRows(rows: readonly number[]): void {
    if (rows.length === this.rows) return;
    const S = this.columns;
    const index = tf.tensor1d(Int32Array.from(rows), 'int32');
    const kept = this.layers.map((l) => ({ k: tf.gather(l.k, index), v: tf.gather(l.v, index) }));
    index.dispose();
    tf.dispose(this.layers.flatMap((l) => [l.k, l.v]));
    this.layers = kept;
    const mask = new Uint8Array(rows.length * S);
    rows.forEach((r, i) => mask.set(this.keyMask.subarray(r * S, (r + 1) * S), i * S));
    this.keyMask = mask;
    this.nextPositions = Int32Array.from(rows, (r) => this.nextPositions[r]!);
  }

  dispose(): void {
    tf.dispose(this.layers.flatMap((l) => [l.k, l.v]));
    this.layers = [];
  }
}
