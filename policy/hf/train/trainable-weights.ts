/**
 * Full fine-tuning: a copy of a model whose every weight is a trainable tf.Variable named by its
 * transformers tensor name, for `tf.variableGrads` / an optimizer, plus snapshots and assignment
 * in transformers' layout ([out, in] Linear weights, [vocab, hidden] embeddings) so a snapshot
 * can be written as safetensors and read back. Inside the model the variables keep the forward
 * pass's layout ([in, out], policy/hf/linear.ts); the transposes happen here only.
 */
import * as tf from '@tensorflow/tfjs-core';

import { HfCausalLm } from '../causal-lm.ts';
import { expectedTensors, type ExpectedTensor } from '../tensor-names.ts';
import { mapModelWeights } from './model-weights.ts';

export interface TrainableHfModel {
  /** The forward pass over the variables (shares them: do not dispose it separately). */
  readonly model: HfCausalLm;
  /** transformers tensor name → variable (model layout). Tied models have one embedding variable. */
  readonly variables: ReadonlyMap<string, tf.Variable>;
  /** Frees the variables. */
  dispose(): void;
}

export interface TrainableOptions {
  /** Prefix of the tf.Variable names (they must be unique in the engine); default ''. */
  readonly namePrefix?: string;
}

/** Copies `model`'s weights into variables (the original is untouched and still owned by the caller). */
export function trainableWeights(model: HfCausalLm, options: TrainableOptions = {}): TrainableHfModel {
  const prefix = options.namePrefix ?? '';
  const variables = new Map<string, tf.Variable>();
  const weights = mapModelWeights(model.config, model.weights, (name, tensor) => {
    const existing = variables.get(name);
    if (existing !== undefined) return existing;
    const v = tf.variable(tensor, true, `${prefix}${name}`);
    variables.set(name, v);
    return v;
  });
  return {
    model: new HfCausalLm(model.config, weights),
    variables,
    dispose: () => {
      for (const v of variables.values()) v.dispose();
    },
  };
}

function layouts(trainable: TrainableHfModel): Map<string, ExpectedTensor> {
  return new Map(expectedTensors(trainable.model.config).map((t) => [t.name, t]));
}

/** Copies of every weight in transformers' layout, by tensor name (the caller disposes them). */
export function snapshotWeights(trainable: TrainableHfModel): Record<string, tf.Tensor> {
  const expected = layouts(trainable);
  const out: Record<string, tf.Tensor> = {};
  for (const [name, v] of trainable.variables) {
    out[name] = expected.get(name)?.transpose === true ? tf.transpose(v) : tf.clone(v);
  }
  return out;
}

/** Sets every variable from tensors in transformers' layout (as `snapshotWeights` returns them). */
export function assignWeights(trainable: TrainableHfModel, tensors: Readonly<Record<string, tf.Tensor>>): void {
  const expected = layouts(trainable);
  for (const name of Object.keys(tensors)) {
    if (!trainable.variables.has(name)) throw new Error(`assignWeights: tensors["${name}"] is not a weight of this ${trainable.model.config.architecture} model`);
  }
  for (const name of trainable.variables.keys()) {
    const t = tensors[name];
    if (t === undefined) throw new Error(`assignWeights: tensors["${name}"] is missing`);
    const layout = expected.get(name)!;
    if (t.shape.join(',') !== layout.shape.join(',')) throw new Error(`assignWeights: tensors["${name}"] is [${t.shape.join(', ')}], expected [${layout.shape.join(', ')}]`);
  }
  for (const [name, v] of trainable.variables) {
    const t = tensors[name]!;
    tf.tidy(() => v.assign(expected.get(name)!.transpose ? tf.transpose(t) : t));
  }
}
