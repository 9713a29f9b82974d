/**
 * Batched one-token-at-a-time decoding over per-sequence KV caches.
 *
 * `open` pads the rows' caches once ("past", keys stored transposed for the score matmul); each
 * `step` appends one token per row to a small "recent" cache that all rows share in length,
 * because they step in lockstep. Attention reads both parts (scores over past and recent are
 * concatenated before the softmax), so a step never copies the past. One host read per step.
 *
 * Rows that are done (`finish`) stop counting tokens; their cache is cut at that point. They keep
 * riding along until at least half the rows are done, then the batch is compacted (the padded
 * tensors shrink to the live rows) — compaction copies the past, so it is amortised.
 */
import * as tf from '@tensorflow/tfjs-core';
import { headDim, type TransformerConfig } from './config.ts';
import type { TransformerParams } from './params.ts';
import { NEG_INF } from './attention.ts';
import { lengthMask, padCaches, type LayerCache, type SequenceCache } from './kv-cache.ts';
import { embedInfer, layerInfer, logitsInfer } from './inference-layer.ts';
import { NO_INSTRUCTION, readInstruction, type InstructionState } from './instruction-copy.ts';
import { fastUnstack, headKernelsAvailable, takeRows } from './ops/head-kernels.ts';
import { PAD_ID } from '../special-tokens.ts';

interface Row {
  readonly key: string;
  readonly cache: SequenceCache;
  /** Tokens this row has fed since open (valid recent entries). */
  fed: number;
  /** Its instruction after the tokens fed (instruction-copy.ts). */
  instruction: InstructionState;
  done: boolean;
}

interface LayerState {
  pastKT: tf.Tensor3D; // [n·H, dh, P]
  pastV: tf.Tensor3D; // [n·H, P, dh]
  recentK: tf.Tensor3D; // [n·H, s, dh]
  recentV: tf.Tensor3D; // [n·H, s, dh]
}

export class DecodeBatch {
  #rows: Row[];
  #layers: LayerState[];
  #pastMask: tf.Tensor4D;
  #steps = 0;
  readonly #finished = new Map<string, SequenceCache>();
  readonly #h: number;
  readonly #dh: number;

  constructor(private readonly params: TransformerParams, private readonly config: TransformerConfig,
    entries: ReadonlyArray<{ readonly key: string; readonly cache: SequenceCache }>) {
    if (entries.length === 0) throw new Error('DecodeBatch needs at least one row');
    if (new Set(entries.map((e) => e.key)).size !== entries.length) throw new Error('DecodeBatch: duplicate row keys');
    this.#h = config.nHeads;
    this.#dh = headDim(config);
    this.#rows = entries.map((e) => ({ key: e.key, cache: e.cache, fed: 0, done: false, instruction: e.cache.instruction ?? NO_INSTRUCTION }));
    const caches = entries.map((e) => e.cache);
    const p = Math.max(...caches.map((k) => k.length));
    const nh = entries.length * this.#h;
    this.#layers = Array.from({ length: config.nLayers }, (_, l): LayerState => ({
      pastKT: tf.tidy(() => tf.transpose(padCaches(caches, l, 'k', p, this.#h, this.#dh), [0, 2, 1])),
      pastV: padCaches(caches, l, 'v', p, this.#h, this.#dh),
      recentK: tf.zeros<tf.Rank.R3>([nh, 0, this.#dh]),
      recentV: tf.zeros<tf.Rank.R3>([nh, 0, this.#dh]),
    }));
    this.#pastMask = lengthMask(caches.map((k) => k.length), p, NEG_INF);
  }

  /** Keys of rows still decoding, in the order `step` expects tokens and returns logits. */
  get activeKeys(): string[] {
    return this.#rows.filter((r) => !r.done).map((r) => r.key);
  }

  /** Stops feeding `key`; its final cache holds everything fed so far. */
  finish(key: string): void {
    const row = this.#rows.find((r) => r.key === key && !r.done);
    if (row === undefined) throw new Error(`DecodeBatch: no active row '${key}'`);
    row.done = true;
    const doneRows = this.#rows.filter((r) => r.done).length;
    if (doneRows * 2 >= this.#rows.length) this.#compact();
  }

  /** Feeds one token per active row (in `activeKeys` order); returns their logits, row-major [n, V]. */
  async step(tokens: readonly number[]): Promise<Float32Array> {
    const active = this.#rows.filter((r) => !r.done);
    if (tokens.length !== active.length) throw new Error(`DecodeBatch.step: ${tokens.length} tokens for ${active.length} rows`);
    const n = this.#rows.length;
    const ids = new Int32Array(n).fill(PAD_ID);
    const positions = new Int32Array(n);
    let next = 0;
    this.#rows.forEach((r, i) => {
      if (!r.done) {
        ids[i] = tokens[next++]!;
        r.instruction = readInstruction(ids, i, i + 1, r.instruction);
      }
      // Done rows feed a pad at a valid position; nothing reads their outputs.
      positions[i] = Math.min(r.cache.length + this.#steps, this.config.maxContext - 1);
      if (!r.done && r.cache.length + this.#steps >= this.config.maxContext) {
        throw new Error(`DecodeBatch: row '${r.key}' reached maxContext ${this.config.maxContext}`);
      }
    });
    const logits = tf.tidy(() => {
      let x = embedInfer(this.params, this.config, ids, positions);
      for (let l = 0; l < this.config.nLayers; l++) x = layerInfer(this.params, l, x, (qkv) => this.#attend(l, qkv, n));
      return logitsInfer(this.params, this.config, x, this.#rows.map((r) => r.instruction));
    });
    this.#steps++;
    for (const r of active) r.fed++;
    const all = (await logits.data()) as Float32Array;
    logits.dispose();
    if (active.length === n) return all;
    const v = this.config.vocabSize;
    const out = new Float32Array(active.length * v);
    let k = 0;
    this.#rows.forEach((r, i) => { if (!r.done) out.set(all.subarray(i * v, (i + 1) * v), v * k++); });
    return out;
  }

  #attend(l: number, qkv: tf.Tensor2D, n: number): tf.Tensor2D {
    const h = this.#h;
    const dh = this.#dh;
    const nh = n * h;
    const st = this.#layers[l]!;
    const qkvHeads = tf.reshape(tf.transpose(tf.reshape(qkv, [n, 3, h, dh]), [1, 0, 2, 3]), [3, nh, dh]);
    const [q, k, v] = (headKernelsAvailable() ? fastUnstack(qkvHeads) : tf.unstack(qkvHeads)) as tf.Tensor2D[];
    const replace = (key: 'recentK' | 'recentV', t: tf.Tensor3D): void => {
      st[key].dispose();
      st[key] = tf.keep(t);
    };
    replace('recentK', tf.concat([st.recentK, tf.reshape(k!, [nh, 1, dh])], 1) as tf.Tensor3D);
    replace('recentV', tf.concat([st.recentV, tf.reshape(v!, [nh, 1, dh])], 1) as tf.Tensor3D);
    const q3 = tf.mul(tf.reshape(q!, [nh, 1, dh]), 1 / Math.sqrt(dh)) as tf.Tensor3D;
    const p = st.pastV.shape[1];
    const s = st.recentV.shape[1];
    const pastScores = tf.reshape(tf.add(tf.reshape(tf.matMul(q3, st.pastKT), [n, h, 1, p]), this.#pastMask), [nh, 1, p]);
    // Scores over the recent keys as multiply-and-sum: keeping a transposed copy would mean a
    // concat along the last axis every step, which wasm does row by row.
    const recentScores = tf.reshape(tf.sum(tf.mul(q3, st.recentK), -1), [nh, 1, s]);
    const probs = tf.softmax(tf.concat([pastScores, recentScores], 2)) as tf.Tensor3D;
    const fromPast = tf.matMul(tf.slice(probs, [0, 0, 0], [nh, 1, p]), st.pastV);
    const fromRecent = tf.matMul(tf.slice(probs, [0, 0, p], [nh, 1, s]), st.recentV);
    return tf.reshape(tf.add(fromPast, fromRecent), [n, h * dh]) as tf.Tensor2D;
  }

  /** Final cache of physical row `i`: its input cache plus the recent tokens it fed. */
  #extract(i: number): SequenceCache {
    const row = this.#rows[i]!;
    const h = this.#h;
    const dh = this.#dh;
    const s = this.#steps;
    const layers: LayerCache[] = this.#layers.map((st, l) => tf.tidy(() => {
      const old = row.cache.layers[l]!;
      const take = (recent: tf.Tensor3D, oldT: tf.Tensor3D): tf.Tensor3D => {
        if (row.fed === 0) return tf.keep(oldT.clone());
        const mine = takeRows(tf.reshape(recent, [this.#rows.length, h * s * dh]) as tf.Tensor2D, tf.tensor1d([i], 'int32'));
        const fresh = tf.slice(tf.reshape(mine, [h, s, dh]), [0, 0, 0], [h, row.fed, dh]);
        return tf.keep(tf.concat([oldT, fresh], 1) as tf.Tensor3D);
      };
      return { k: take(st.recentK, old.k), v: take(st.recentV, old.v) };
    }));
    return { length: row.cache.length + row.fed, layers, instruction: row.instruction };
  }

  /** Moves done rows' caches out and shrinks the padded tensors to the live rows. */
  #compact(): void {
    const keep: number[] = [];
    this.#rows.forEach((r, i) => {
      if (r.done) this.#finished.set(r.key, this.#extract(i));
      else keep.push(i);
    });
    if (keep.length === 0) {
      this.#rows = [];
      return;
    }
    const h = this.#h;
    const n = this.#rows.length;
    const headRows = keep.flatMap((i) => Array.from({ length: h }, (_, j) => i * h + j));
    const select = (t: tf.Tensor3D): tf.Tensor3D => tf.tidy(() => {
      const [, a, b] = t.shape;
      if (a * b === 0) return tf.zeros([headRows.length, a, b]);
      return tf.reshape(takeRows(tf.reshape(t, [n * h, a * b]) as tf.Tensor2D, tf.tensor1d(headRows, 'int32')), [headRows.length, a, b]);
    });
    for (const st of this.#layers) {
      for (const key of ['pastKT', 'pastV', 'recentK', 'recentV'] as const) {
        const next = select(st[key]);
        st[key].dispose();
        st[key] = next;
      }
    }
    this.#rows = keep.map((i) => this.#rows[i]!);
    const p = this.#pastMask.shape[3];
    this.#pastMask.dispose();
    this.#pastMask = lengthMask(this.#rows.map((r) => r.cache.length), p, NEG_INF);
  }

  /** Final caches of all rows (by key); releases the batch's tensors. Input caches are untouched. */
  close(): Map<string, SequenceCache> {
    const out = new Map(this.#finished);
    this.#rows.forEach((r, i) => out.set(r.key, this.#extract(i)));
    for (const st of this.#layers) tf.dispose([st.pastKT, st.pastV, st.recentK, st.recentV]);
    this.#pastMask.dispose();
    this.#rows = [];
    this.#layers = [];
    return out;
  }
}
