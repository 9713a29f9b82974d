/**
 * The decoding state of a left-padded batch: each layer's keys and values for every column so
 * far, which columns are real tokens, and each row's next RoPE position. Rows that finish are
 * dropped (`keepRows`), so later steps compute only the live sequences.
 *
 * Multi-turn: `assemble` lines up rows that each hold their own cached prefix (right-aligned, the
 * gap masked), `extendStep` appends a ragged chunk of new ids per row (each chunk right-aligned
 * in the new columns, the gap masked, positions continuing from the row's own count), and
 * `rowPrefix` copies one row's real columns back out. Masked columns get exactly zero attention
 * weight (causal-lm.ts MASKED), so a row computes what it computes alone, whatever the padding.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { KvPair } from './attention.ts';
import type { ForwardBatch } from './causal-lm.ts';
import { tidyResult } from './tidy.ts';

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

  /**
   * The batch that appends `chunks[r]` to row r after the cached columns, in one forward of
   * max-chunk-length columns. A shorter chunk is right-aligned (so its last token sits in the
   * last column, where 'last' logits are read) and its leading columns are masked; an empty chunk
   * leaves its row untouched (all its new columns masked, its position unchanged; ignore that
   * row's logits).
   */
  extendStep(chunks: readonly (readonly number[])[], padId = 0): ForwardBatch {
    if (chunks.length !== this.rows) throw new Error(`KvCache.extendStep: ${chunks.length} chunks for ${this.rows} rows`);
    const T = Math.max(...chunks.map((c) => c.length));
    if (!(T >= 1)) throw new Error('KvCache.extendStep: every chunk is empty');
    const S = this.columns;
    const W = S + T;
    const tokens = new Int32Array(this.rows * T).fill(padId);
    const positions = new Int32Array(this.rows * T);
    const keyMask = new Uint8Array(this.rows * W);
    for (const [r, chunk] of chunks.entries()) {
      keyMask.set(this.keyMask.subarray(r * S, (r + 1) * S), r * W);
      const pad = T - chunk.length;
      for (let i = 0; i < chunk.length; i++) {
        tokens[r * T + pad + i] = chunk[i]!;
        positions[r * T + pad + i] = this.nextPositions[r]! + i;
        keyMask[r * W + S + pad + i] = 1;
      }
    }
    return { tokens, batch: this.rows, length: T, positions, keyMask };
  }

  /** Replaces the cache with the forward result of `nextStep` or `extendStep` (takes ownership of `kv`). */
  advance(step: ForwardBatch, kv: KvPair[]): void {
    const W = this.columns + step.length;
    if (step.batch !== this.rows || step.keyMask.length !== this.rows * W) throw new Error('KvCache.advance: the step does not follow this cache');
    tf.dispose(this.layers.flatMap((l) => [l.k, l.v]));
    this.layers = kv;
    // Each row moves on by the real tokens it was given (1 per decode step, its chunk's length when extended).
    this.nextPositions = this.nextPositions.map((p, r) => {
      let added = 0;
      for (let t = W - step.length; t < W; t++) added += step.keyMask[r * W + t]!;
      return p + added;
    });
    this.keyMask = step.keyMask;
  }

  /** Row r's token count so far (its real columns; the position its next token takes). */
  lengthOf(row: number): number {
    const n = this.nextPositions[row];
    if (n === undefined) throw new Error(`KvCache.lengthOf: no row ${row}`);
    return n;
  }

  /**
   * A copy of row r's real columns, per layer [1, kvHeads, lengthOf(r), headDim] (undefined when
   * the row holds no token). The caller owns the copy; the cache is unchanged.
   */
  rowPrefix(row: number): KvPair[] | undefined {
    const S = this.columns;
    if (row < 0 || row >= this.rows) throw new Error(`KvCache.rowPrefix: no row ${row}`);
    const real: number[] = [];
    for (let s = 0; s < S; s++) if (this.keyMask[row * S + s] === 1) real.push(s);
    if (real.length === 0) return undefined;
    return tidyResult(() => {
      const rowIndex = tf.tensor1d([row], 'int32');
      const columns = tf.tensor1d(real, 'int32');
      const pick = (t: tf.Tensor4D): tf.Tensor4D => {
        const one = tf.gather(t, rowIndex, 0);
        return real.length === S ? one : tf.gather(one, columns, 2);
      };
      return this.layers.map((l) => ({ k: pick(l.k), v: pick(l.v) }));
    });
  }

  /**
   * A batch cache from per-row prefixes (each per layer [1, kvHeads, n, headDim], as `rowPrefix`
   * gives; undefined for a row with no token yet): right-aligned to the longest, the gap zero and
   * masked. The prefixes are copied; the caller keeps ownership of them.
   */
  static assemble(prefixes: readonly (readonly KvPair[] | undefined)[]): KvCache {
    if (prefixes.length === 0) throw new Error('KvCache.assemble: no rows');
    const lengths = prefixes.map((p) => p?.[0]?.k.shape[2] ?? 0);
    const S = Math.max(...lengths);
    const keyMask = new Uint8Array(prefixes.length * S);
    lengths.forEach((n, r) => keyMask.fill(1, r * S + S - n, (r + 1) * S));
    const next = Int32Array.from(lengths);
    if (S === 0) return new KvCache([], keyMask, next);
    const template = prefixes.find((p) => (p?.[0]?.k.shape[2] ?? 0) > 0)!;
    const layers = tidyResult(() =>
      template.map((shape, layer) => {
        const [, heads, , headDim] = shape.k.shape;
        const padded = (pick: (kv: KvPair) => tf.Tensor4D): tf.Tensor4D =>
          tf.concat(
            prefixes.map((p, r) => {
              const n = lengths[r]!;
              if (p === undefined || n === 0) return tf.zeros([1, heads, S, headDim]) as tf.Tensor4D;
              const t = pick(p[layer]!);
              return n === S ? t : tf.pad(t, [[0, 0], [0, 0], [S - n, 0], [0, 0]]);
            }),
            0,
          ) as tf.Tensor4D;
        return { k: padded((kv) => kv.k), v: padded((kv) => kv.v) };
      }),
    );
    return new KvCache(layers, keyMask, next);
  }

  /**
   * Keeps only `rows` (indices into the current rows, ascending). Columns that are padding in
   * every kept row are dropped too (they would only be masked out), so when the longest row
   * finishes first the others stop paying for its columns.
   */
  keepRows(rows: readonly number[]): void {
    if (rows.length === this.rows) return;
    const S = this.columns;
    const columns: number[] = [];
    for (let s = 0; s < S; s++) if (rows.some((r) => this.keyMask[r * S + s] === 1)) columns.push(s);
    const kept = tidyResult(() => {
      const rowIndex = tf.tensor1d(Int32Array.from(rows), 'int32');
      const columnIndex = tf.tensor1d(Int32Array.from(columns), 'int32');
      const pick = (t: tf.Tensor4D): tf.Tensor4D => {
        const r = tf.gather(t, rowIndex, 0);
        return columns.length === S ? r : tf.gather(r, columnIndex, 2);
      };
      return this.layers.map((l) => ({ k: pick(l.k), v: pick(l.v) }));
    });
    tf.dispose(this.layers.flatMap((l) => [l.k, l.v]));
    this.layers = kept;
    const C = columns.length;
    const mask = new Uint8Array(rows.length * C);
    rows.forEach((r, i) => columns.forEach((s, j) => (mask[i * C + j] = this.keyMask[r * S + s]!)));
    this.keyMask = mask;
    this.nextPositions = Int32Array.from(rows, (r) => this.nextPositions[r]!);
  }

  dispose(): void {
    tf.dispose(this.layers.flatMap((l) => [l.k, l.v]));
    this.layers = [];
  }
}
