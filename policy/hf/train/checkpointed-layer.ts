/**
 * Decoder layers for training. `plainLayer` lets autodiff keep the layer's activations (the
 * attention scores and probabilities, [B, heads, T, T] each, dominate at long T).
 * `checkpointedLayer` is gradient checkpointing: its forward pass keeps only the layer's input,
 * and its backward pass runs the layer again under a tape of its own to get the gradients w.r.t.
 * the input and the layer's trainable variables, so only one layer's activations ever exist.
 */
import * as tf from '@tensorflow/tfjs-core';

import { decoderLayer, type DecoderLayerWeights } from '../decoder-layer.ts';
import type { HfModelConfig } from '../config.ts';
import type { RopeTables } from '../rope.ts';
import { isolatedGradients } from './isolated-gradients.ts';
import { layerTrainables } from './trainable-inputs.ts';

type Shape = Pick<HfModelConfig, 'numHeads' | 'numKvHeads' | 'headDim' | 'rmsNormEps'>;

/** One layer over the whole sequence (no cache); its keys and values are freed at once. */
export function plainLayer(w: DecoderLayerWeights, config: Shape, x: tf.Tensor3D, rope: RopeTables, mask: tf.Tensor4D): tf.Tensor3D {
  return tf.tidy(() => decoderLayer(w, config, { x, rope, mask }).out);
}

export function checkpointedLayer(w: DecoderLayerWeights, config: Shape, x: tf.Tensor3D, rope: RopeTables, mask: tf.Tensor4D): tf.Tensor3D {
  const trainables = layerTrainables(w);
  const run = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const input = args[0] as tf.Tensor3D;
    // The rope tables and mask are freed after the forward pass; saved copies share their data.
    (args[args.length - 1] as tf.GradSaveFunc)([input, rope.cos, rope.sin, mask]);
    return {
      value: plainLayer(w, config, input, rope, mask),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const [x0, cos, sin, m] = saved as [tf.Tensor3D, tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
        return isolatedGradients(() => plainLayer(w, config, x0, { cos, sin }, m), [x0, ...trainables], dy);
      }),
    };
  });
  return run(x, ...trainables) as tf.Tensor3D;
}
