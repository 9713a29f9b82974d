/**
 * Token embeddings with a gradient the WebAssembly backend can run. `tf.gather`'s gradient needs
 * UnsortedSegmentSum, which the wasm backend lacks (shared/reference/tfjs-on-this-machine.md), so
 * a trainable table gets a custom gradient that scatter-adds the rows' gradients with ScatterNd
 * (repeated ids are summed), which both wasm and cpu have. A frozen table is a plain gather.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { CausalLmWeights } from '../causal-lm.ts';
import { isTrainable } from './trainable-inputs.ts';

/** Rows of the embedding for `ids` ([n] int32) → [n, hidden]. Tied models read `lmHead`'s columns. */
export function embedTokens(weights: CausalLmWeights, ids: tf.Tensor1D): tf.Tensor2D {
  const untied = weights.embedTokens;
  const table = untied ?? weights.lmHead;
  const tied = untied === undefined;
  const lookup = (t: tf.Tensor2D): tf.Tensor2D => (tied ? tf.transpose(tf.gather(t, ids, 1)) : tf.gather(t, ids));
  if (!isTrainable(table)) return lookup(table);
  const [rows, cols] = table.shape as [number, number];
  const embed = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const t = args[0] as tf.Tensor2D;
    (args[1] as tf.GradSaveFunc)([ids]);
    return {
      value: lookup(t),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const index = tf.reshape(saved[0]!, [ids.size, 1]);
        // Untied: d table[id, :] += dy[n, :]. Tied ([hidden, vocab]): the same, transposed.
        const summed = tf.scatterND(index, dy, tied ? [cols, rows] : [rows, cols]);
        return tied ? tf.transpose(summed) : summed;
      }),
    };
  });
  return embed(table) as tf.Tensor2D;
}
