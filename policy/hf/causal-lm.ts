/**
 * A Hugging Face causal LM (Qwen2, Qwen3, Llama 3) as a TF.js forward pass with a KV cache.
 *
 * Batches are LEFT-padded (policy/hf/left-pad.ts): every row's last real token sits in the last
 * column, so prefill's "last" logits are each row's next-token logits and every decode step
 * appends one column for all rows. Padding is excluded by `keyMask`, and each row's positions
 * count its real tokens only, so a padded row computes exactly what it computes alone.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { KvPair } from './attention.ts';
import type { HfModelConfig } from './config.ts';
import { decoderLayer, type DecoderLayerWeights } from './decoder-layer.ts';
import { rmsNorm } from './rms-norm.ts';
import { tidyResult } from './tidy.ts';
import { ropeInverseFrequencies, ropeTables } from './rope.ts';

export interface CausalLmWeights {
  /** [vocab, hidden]; absent when the embeddings are tied (then rows come from `lmHead`). */
  readonly embedTokens?: tf.Tensor2D;
  /** [hidden, vocab] (the transpose of lm_head.weight, or of embed_tokens when tied). */
  readonly lmHead: tf.Tensor2D;
  readonly layers: readonly DecoderLayerWeights[];
  readonly finalNorm: tf.Tensor1D;
}

export interface ForwardBatch {
  /** [B × T] token ids, row-major. */
  readonly tokens: Int32Array;
  readonly batch: number;
  /** T: new columns in this call. */
  readonly length: number;
  /** [B × T] RoPE positions. */
  readonly positions: Int32Array;
  /** [B × S], S = cached columns + T: 1 for a real token, 0 for padding. */
  readonly keyMask: Uint8Array;
}

export interface ForwardResult {
  /** [B, T, vocab] for 'all', [B, 1, vocab] (the last column) for 'last'. */
  readonly logits: tf.Tensor3D;
  /** Per layer: keys and values of all S columns (feed back as `past`). */
  readonly kv: KvPair[];
}

/** Added to masked attention scores: exp() of it is exactly 0 in float32. */
const MASKED = -1e9;

/** Additive attention mask [B, 1, T, S]: causal over the last T columns, padding excluded. */
export function attentionMask(keyMask: Uint8Array, batch: number, length: number): tf.Tensor4D {
  const S = keyMask.length / batch;
  const past = S - length;
  const mask = new Float32Array(batch * length * S);
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < length; t++) {
      const row = (b * length + t) * S;
      for (let s = 0; s < S; s++) {
        mask[row + s] = s <= past + t && keyMask[b * S + s] === 1 ? 0 : MASKED;
      }
    }
  }
  return tf.tensor4d(mask, [batch, 1, length, S]);
}

export class HfCausalLm {
  private readonly invFreq: Float32Array;

  constructor(
    readonly config: HfModelConfig,
    readonly weights: CausalLmWeights,
  ) {
    this.invFreq = ropeInverseFrequencies(config);
  }

  /** Token embeddings [B·T, hidden]. */
  private embed(ids: tf.Tensor1D): tf.Tensor2D {
    const table = this.weights.embedTokens;
    if (table !== undefined) return tf.gather(table, ids);
    // Tied: one [hidden, vocab] copy serves both ends; gather its columns.
    return tf.transpose(tf.gather(this.weights.lmHead, ids, 1));
  }

  forward(input: ForwardBatch, past?: readonly KvPair[], logits: 'all' | 'last' = 'all'): ForwardResult {
    const { batch: B, length: T } = input;
    if (input.tokens.length !== B * T || input.positions.length !== B * T) throw new Error('forward: tokens/positions must hold batch × length entries');
    const pastLength = past?.[0]?.k.shape[2] ?? 0;
    if (input.keyMask.length !== B * (pastLength + T)) throw new Error(`forward: keyMask must hold batch × ${pastLength + T} entries`);
    return tidyResult(() => {
      const { hiddenSize: H, vocabSize: V } = this.config;
      const rope = ropeTables(this.invFreq, input.positions, B, T);
      const mask = attentionMask(input.keyMask, B, T);
      let x = tf.reshape(this.embed(tf.tensor1d(input.tokens, 'int32')), [B, T, H]) as tf.Tensor3D;
      const kv: KvPair[] = [];
      for (const [i, layer] of this.weights.layers.entries()) {
        const pastKv = past?.[i];
        const step = decoderLayer(layer, this.config, pastKv === undefined ? { x, rope, mask } : { x, rope, mask, past: pastKv });
        x = step.out;
        kv.push(step.kv);
      }
      const kept = logits === 'last' ? tf.slice(x, [0, T - 1, 0], [B, 1, H]) : x;
      const rows = kept.shape[1];
      const normed = tf.reshape(rmsNorm(kept, this.weights.finalNorm, this.config.rmsNormEps), [B * rows, H]) as tf.Tensor2D;
      const out = tf.reshape(tf.matMul(normed, this.weights.lmHead), [B, rows, V]) as tf.Tensor3D;
      return { logits: out, kv };
    });
  }

  /** Frees every weight tensor. */
  dispose(): void {
    const w = this.weights;
    const all: tf.Tensor[] = [w.lmHead, w.finalNorm];
    if (w.embedTokens !== undefined) all.push(w.embedTokens);
    for (const l of w.layers) {
      all.push(l.inputNorm, l.postAttentionNorm);
      for (const lin of [l.attention.q, l.attention.k, l.attention.v, l.attention.o, l.mlp.gate, l.mlp.up, l.mlp.down]) {
        all.push(lin.weight);
        if (lin.bias !== undefined) all.push(lin.bias);
      }
      if (l.attention.qNorm !== undefined) all.push(l.attention.qNorm);
      if (l.attention.kNorm !== undefined) all.push(l.attention.kNorm);
    }
    tf.dispose(all);
  }
}
