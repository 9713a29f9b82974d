/** The output head of the training paths: final hidden states → next-token logits. */
import type * as tf from '@tensorflow/tfjs-core';
import type { TransformerConfig } from './config.ts';
import { headWeight, param, type TransformerParams } from './params.ts';
import { batchCopyInputs, withInstructionCopy } from './instruction-copy.ts';
import { linear } from './ops/linear.ts';

/** Logits [B·T, V] from `h` [B·T, d] of the batch `tokens` [B, T] (with the instruction copy when configured). */
export function headLogits(p: TransformerParams, c: TransformerConfig, h: tf.Tensor2D, tokens: tf.Tensor2D): tf.Tensor2D {
  const logits = linear(h, headWeight(p, c), param(p, 'head.b'));
  if (c.instructionCopy !== true) return logits;
  return withInstructionCopy(p, c, h, logits, batchCopyInputs(tokens, c));
}
