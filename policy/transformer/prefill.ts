/**
 * Prefill: append a run of new tokens to each of several sequences at once (different past and
 * new lengths), returning the grown caches and the next-token logits after each sequence's last
 * new token — one host read for the whole batch.
 *
 * Layout: new tokens are right-padded to M, pasts to P. A query t of row i sees its own past keys
 * j < pastLen[i] and its new keys u ≤ t; padded queries compute garbage that nothing reads, and
 * padded keys are masked, so rows never influence one another. On the wasm backend, rows with no
 * past (a fresh context window, every turn of a history-0 policy) are instead packed end to end
 * with no padding, and attention is one fused kernel call (ops/fused-attention.ts).
 */
import * as tf from '@tensorflow/tfjs-core';
import { headDim, type TransformerConfig } from './config.ts';
import type { TransformerParams } from './params.ts';
import { NEG_INF } from './attention.ts';
import { padCaches, type LayerCache, type SequenceCache } from './kv-cache.ts';
import { embedInfer, layerInfer, logitsInfer } from './inference-layer.ts';
import { NO_INSTRUCTION, readInstruction } from './instruction-copy.ts';
import { batchedMatMul } from './ops/bmm.ts';
import { fusedAttentionAvailable, fusedAttentionPacked } from './ops/fused-attention.ts';
import { fastUnstack, headKernelsAvailable, rowHeads, splitHeads, takeRows } from './ops/head-kernels.ts';
import { PAD_ID } from '../special-tokens.ts';

export interface PrefillResult {
  /** New caches, one per input row (the inputs are left untouched). */
  readonly caches: SequenceCache[];
  /** Next-token logits, row-major [n, V]. */
  readonly logits: Float32Array;
}

/** [n·H, M, dh] heads of part `which` (0 q, 1 k, 2 v) of qkv [n·M, 3d]. */
function heads(qkv: tf.Tensor2D, n: number, m: number, h: number, dh: number, which: number): tf.Tensor3D {
  if (headKernelsAvailable()) {
    return tf.stack(splitHeads(qkv, { batch: n, time: m, heads: h, headDim: dh }, which * h * dh)) as tf.Tensor3D;
  }
  const part = tf.slice(qkv, [0, which * h * dh], [n * m, h * dh]);
  return tf.reshape(tf.transpose(tf.reshape(part, [n, m, h, dh]), [0, 2, 1, 3]), [n * h, m, dh]) as tf.Tensor3D;
}

/** Additive mask [n, 1, M, P+M] (see the module note). */
function prefillMask(pastLens: readonly number[], newLens: readonly number[], p: number, m: number): tf.Tensor4D {
  const width = p + m;
  const mask = new Float32Array(pastLens.length * m * width).fill(NEG_INF);
  pastLens.forEach((past, i) => {
    for (let t = 0; t < m; t++) {
      const row = (i * m + t) * width;
      mask.fill(0, row, row + past);
      mask.fill(0, row + p, row + p + t + 1);
    }
  });
  return tf.tensor4d(mask, [pastLens.length, 1, m, width]);
}

/** Throws on a call prefill cannot serve: mismatched rows, an empty row, a row past maxContext. */
function checkRows(c: TransformerConfig, pastLens: readonly number[], newLens: readonly number[], rows: number): void {
  if (pastLens.length !== rows) throw new Error('prefill: one cache slot per token row');
  if (newLens.some((len) => len === 0)) throw new Error('prefill: every row needs at least one new token');
  newLens.forEach((len, i) => {
    if (pastLens[i]! + len > c.maxContext) {
      throw new Error(`prefill: row ${i} would hold ${pastLens[i]! + len} tokens, above maxContext ${c.maxContext}`);
    }
  });
}

/** Token ids and positions of the rows laid out end to end (`packed`) or each right-padded to `m`, and where each row starts. */
function layOut(c: TransformerConfig, tokens: readonly (readonly number[])[], pastLens: readonly number[], m: number, packed: boolean) {
  const starts: number[] = [];
  let total = 0;
  for (const row of tokens) {
    starts.push(total);
    total += packed ? row.length : m;
  }
  const ids = new Int32Array(total).fill(PAD_ID);
  const positions = new Int32Array(total);
  tokens.forEach((row, i) => {
    const at = starts[i]!;
    row.forEach((id, t) => { ids[at + t] = id; });
    for (let t = 0; t < (packed ? row.length : m); t++) positions[at + t] = Math.min(pastLens[i]! + t, c.maxContext - 1);
  });
  return { ids, positions, starts };
}

/** One layer's attention over right-padded rows: each row's new keys/values appended to its cache (into `newLayers`), then masked attention over past and new. */
function paddedAttention(
  qkv: tf.Tensor2D, l: number, caches: readonly (SequenceCache | undefined)[], newLayers: LayerCache[][],
  dims: { n: number; m: number; p: number; h: number; dh: number }, newLens: readonly number[], mask: () => tf.Tensor4D,
): tf.Tensor2D {
  const { n, m, p, h, dh } = dims;
  const q = tf.mul(heads(qkv, n, m, h, dh, 0), 1 / Math.sqrt(dh)) as tf.Tensor3D;
  let k = heads(qkv, n, m, h, dh, 1);
  let v = heads(qkv, n, m, h, dh, 2);
  // Each row keeps its own real new keys/values, appended to its old cache.
  const kRows = fastOrPlainUnstack(tf.reshape(k, [n, h, m, dh]));
  const vRows = fastOrPlainUnstack(tf.reshape(v, [n, h, m, dh]));
  for (let i = 0; i < n; i++) {
    const grow = (old: tf.Tensor3D | undefined, rows: tf.Tensor[]): tf.Tensor3D => {
      const fresh = tf.slice(rows[i]!, [0, 0, 0], [h, newLens[i]!, dh]) as tf.Tensor3D;
      return tf.keep(old === undefined ? fresh : (tf.concat([old, fresh], 1) as tf.Tensor3D));
    };
    const old = caches[i]?.layers[l];
    newLayers[i]!.push({ k: grow(old?.k, kRows), v: grow(old?.v, vRows) });
  }
  if (p > 0) {
    k = tf.concat([padCaches(caches, l, 'k', p, h, dh), k], 1) as tf.Tensor3D;
    v = tf.concat([padCaches(caches, l, 'v', p, h, dh), v], 1) as tf.Tensor3D;
  }
  const scores = tf.add(tf.reshape(batchedMatMul(q, tf.transpose(k, [0, 2, 1])), [n, h, m, p + m]), mask());
  const probs = tf.reshape(tf.softmax(scores), [n * h, m, p + m]) as tf.Tensor3D;
  const out = batchedMatMul(probs, v);
  return tf.reshape(tf.transpose(tf.reshape(out, [n, h, m, dh]), [0, 2, 1, 3]), [n * m, h * dh]) as tf.Tensor2D;
}

export async function prefill(
  params: TransformerParams, c: TransformerConfig,
  caches: readonly (SequenceCache | undefined)[], tokens: readonly (readonly number[])[],
): Promise<PrefillResult> {
  const n = tokens.length;
  const pastLens = caches.map((k) => k?.length ?? 0);
  const newLens = tokens.map((t) => t.length);
  checkRows(c, pastLens, newLens, n);
  const m = Math.max(...newLens);
  const p = Math.max(...pastLens);
  const h = c.nHeads;
  const dh = headDim(c);
  // With no past on the wasm backend the rows are packed end to end (no padding: the fused
  // kernel takes each sequence's length); otherwise each is right-padded to m.
  const packed = p === 0 && fusedAttentionAvailable();
  const { ids, positions, starts } = layOut(c, tokens, pastLens, m, packed);

  // Each sequence's instruction, read on from where its cache left it.
  const instructions = tokens.map((row, i) => readInstruction(row, 0, row.length, caches[i] === undefined ? undefined : (caches[i]!.instruction ?? NO_INSTRUCTION)));
  const newLayers: LayerCache[][] = tokens.map(() => []);
  const logits = tf.tidy(() => {
    let mask: tf.Tensor4D | undefined; // built once, on the first layer that needs it
    const maskOnce = () => (mask ??= prefillMask(pastLens, newLens, p, m));
    let x = embedInfer(params, c, ids, positions);
    for (let l = 0; l < c.nLayers; l++) {
      x = layerInfer(params, l, x, (qkv) => {
        if (!packed) return paddedAttention(qkv, l, caches, newLayers, { n, m, p, h, dh }, newLens, maskOnce);
        const shape = { batch: n, time: m, heads: h, headDim: dh };
        const ks = rowHeads(qkv, shape, h * dh, newLens, starts);
        const vs = rowHeads(qkv, shape, 2 * h * dh, newLens, starts);
        ks.forEach((k, i) => newLayers[i]!.push({ k: tf.keep(k), v: tf.keep(vs[i]!) }));
        return fusedAttentionPacked(qkv, newLens, h, dh);
      });
    }
    const last = Int32Array.from(newLens, (len, i) => starts[i]! + len - 1);
    return logitsInfer(params, c, takeRows(x, tf.tensor1d(last, 'int32')), instructions);
  });
  const values = (await logits.data()) as Float32Array;
  logits.dispose();
  return {
    caches: newLayers.map((layers, i) => ({ length: pastLens[i]! + newLens[i]!, layers, instruction: instructions[i]! })),
    logits: values,
  };
}

function fastOrPlainUnstack(x: tf.Tensor): tf.Tensor[] {
  return headKernelsAvailable() ? fastUnstack(x) : tf.unstack(x);
}
