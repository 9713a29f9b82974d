/**
 * The parts of a transformer layer that do not depend on how attention reads its keys, for the
 * inference paths (prefill.ts, decode-batch.ts). Forward only: plain fused matmuls, no tape.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TransformerConfig } from './config.ts';
import { headWeight, param, type TransformerParams } from './params.ts';
import { takeRows } from './ops/head-kernels.ts';
import { layerNormInfer } from './ops/layer-norm.ts';
import { bagTensor, type InstructionState } from './instruction-copy.ts';

function dense(x: tf.Tensor2D, p: TransformerParams, name: string, activation: 'linear' | 'relu' = 'linear'): tf.Tensor2D {
  const w = param<tf.Rank.R2>(p, `${name}.w`);
  return tf.fused.matMul({ a: x, b: w, bias: param(p, `${name}.b`), activation }) as tf.Tensor2D;
}

/** Token + position embeddings for `ids` at `positions` (both int32 arrays of equal length) → [R, d]. */
export function embedInfer(p: TransformerParams, c: TransformerConfig, ids: Int32Array, positions: Int32Array): tf.Tensor2D {
  for (const pos of positions) {
    if (pos < 0 || pos >= c.maxContext) throw new Error(`position ${pos} outside the context [0, ${c.maxContext})`);
  }
  return tf.tidy(() => tf.add(
    takeRows(param(p, 'tok_emb'), tf.tensor1d(ids, 'int32')),
    takeRows(param(p, 'pos_emb'), tf.tensor1d(positions, 'int32')),
  ) as tf.Tensor2D);
}

/**
 * One layer: x + attn(LN1 x) then + MLP(LN2 ·). `attend` maps the fused projection qkv [R, 3d]
 * to merged heads [R, d].
 */
export function layerInfer(
  p: TransformerParams, layer: number, x: tf.Tensor2D, attend: (qkv: tf.Tensor2D) => tf.Tensor2D,
): tf.Tensor2D {
  const a = layerNormInfer(x, param(p, `h${layer}.ln1.g`), param(p, `h${layer}.ln1.b`));
  const attn = dense(attend(dense(a, p, `h${layer}.attn.qkv`)), p, `h${layer}.attn.out`);
  const x1 = tf.add(x, attn) as tf.Tensor2D;
  const m = layerNormInfer(x1, param(p, `h${layer}.ln2.g`), param(p, `h${layer}.ln2.b`));
  const hidden = dense(m, p, `h${layer}.mlp.fc`, 'relu');
  return tf.add(x1, dense(hidden, p, `h${layer}.mlp.proj`)) as tf.Tensor2D;
}

/**
 * Next-token logits [R, V] from final residual states [R, d]; `instructions` (each row's state
 * after its current token) feed the instruction copy of models that have it.
 */
export function logitsInfer(p: TransformerParams, c: TransformerConfig, x: tf.Tensor2D, instructions?: readonly InstructionState[]): tf.Tensor2D {
  const h = layerNormInfer(x, param(p, 'ln_f.g'), param(p, 'ln_f.b'));
  const logits = tf.fused.matMul({ a: h, b: headWeight(p, c), bias: param(p, 'head.b') }) as tf.Tensor2D;
  if (c.instructionCopy !== true) return logits;
  if (instructions === undefined || instructions.length !== x.shape[0]) throw new Error('logitsInfer: instruction copy needs one instruction per row');
  const gate = tf.fused.matMul({ a: h, b: param(p, 'copy.w'), bias: param(p, 'copy.b') });
  return tf.add(logits, tf.mul(gate, bagTensor(instructions, c))) as tf.Tensor2D;
}
