/**
 * Decoder layers for training (training-layer.ts). `plainLayer` lets autodiff keep the layer's
 * activations for the backward pass. `checkpointedLayer` is gradient checkpointing: its forward
 * pass keeps only the layer's input, and its backward pass runs the layer again under a tape of
 * its own to get the gradients w.r.t. the input and the layer's trainable variables, so only one
 * layer's activations exist at a time.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { DecoderLayerWeights } from '../decoder-layer.ts';
import type { RopeTables } from '../rope.ts';
import { isolatedGradients } from './isolated-gradients.ts';
import { trainingLayer, type LayerShape } from './training-layer.ts';
import { layerTrainables } from './trainable-inputs.ts';

export function plainLayer(w: DecoderLayerWeights, config: LayerShape, x: tf.Tensor3D, rope: RopeTables, attentionBlock: number): tf.Tensor3D {
  return trainingLayer(w, config, x, rope, attentionBlock);
}

export function checkpointedLayer(w: DecoderLayerWeights, config: LayerShape, x: tf.Tensor3D, rope: RopeTables, attentionBlock: number): tf.Tensor3D {
  const trainables = layerTrainables(w);
  const run = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const input = args[0] as tf.Tensor3D;
    // The rope tables are freed after the forward pass; saved copies share their data.
    (args[args.length - 1] as tf.GradSaveFunc)([input, rope.cos, rope.sin]);
    return {
      value: trainingLayer(w, config, input, rope, attentionBlock),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const [x0, cos, sin] = saved as [tf.Tensor3D, tf.Tensor4D, tf.Tensor4D];
        return isolatedGradients(() => trainingLayer(w, config, x0, { cos, sin }, attentionBlock), [x0, ...trainables], dy);
      }),
    };
  });
  return run(x, ...trainables) as tf.Tensor3D;
}
