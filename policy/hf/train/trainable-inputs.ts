/**
 * The tensors a custom gradient differentiates: the trainable tf.Variables among a set of
 * weights. A custom gradient computes every input's gradient eagerly, so frozen weights (the base
 * model under LoRA) are closed over instead of passed in, and cost nothing in the backward pass.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { DecoderLayerWeights } from '../decoder-layer.ts';
import type { LinearWeights } from '../linear.ts';

export function isTrainable(t: tf.Tensor | undefined): t is tf.Variable {
  return t instanceof tf.Variable && t.trainable;
}

function linearTensors(w: LinearWeights): (tf.Tensor | undefined)[] {
  return [w.weight, w.bias, w.lora?.a, w.lora?.b];
}

/** Every trainable variable one decoder layer reads, each once, in a fixed order. */
export function layerTrainables(w: DecoderLayerWeights): tf.Variable[] {
  const a = w.attention;
  const all = [
    w.inputNorm, w.postAttentionNorm, a.qNorm, a.kNorm,
    ...[a.q, a.k, a.v, a.o, w.mlp.gate, w.mlp.up, w.mlp.down].flatMap(linearTensors),
  ];
  const seen = new Set<number>();
  const out: tf.Variable[] = [];
  for (const t of all) {
    if (!isTrainable(t) || seen.has(t.id)) continue;
    seen.add(t.id);
    out.push(t);
  }
  return out;
}
