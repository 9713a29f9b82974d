/**
 * The agent's own copy of a Hugging Face run's trained weights (asynchronous training): a
 * snapshot of the trained variables — LoRA's adapters, or every weight in full fine-tuning — and
 * a forward pass that reads the snapshot where the learner's model reads its variables, sharing
 * everything else (the frozen base weights under LoRA).
 *
 * Why: Adam updates the learner's variables while a collection that runs ahead is decoding; an
 * agent on those variables would see its weights change mid-step. A snapshot is `tf.clone` of
 * each variable, which shares the variable's data (tfjs tensors are immutable; Adam re-points the
 * variable to new data), so taking it costs no memory; it holds its version's data alive once the
 * learner has moved on: the adapters' size under LoRA, the model's weights in full fine-tuning.
 */
import * as tf from '@tensorflow/tfjs-core';
import { HfCausalLm, type CausalLmWeights } from '../../policy/hf/causal-lm.ts';
import type { DecoderLayerWeights } from '../../policy/hf/decoder-layer.ts';
import type { LinearWeights } from '../../policy/hf/linear.ts';
import type { HfRunModels } from './hf-run-models.ts';

export interface HfWeightsSnapshot {
  /** The forward pass on the snapshot (shares the base weights: never dispose it; dispose the snapshot). */
  readonly model: HfCausalLm;
  /** The snapshot's tensors, by the variable they copy. */
  readonly tensors: ReadonlyMap<tf.Variable, tf.Tensor>;
  /** Frees the snapshot's tensors (the learner's weights are untouched). */
  dispose(): void;
}

/** The variables the agent's forward pass reads and the learner trains (a value head is the critic's only). */
export function trainedVariables(models: Pick<HfRunModels, 'adapters' | 'full'>): tf.Variable[] {
  if (models.adapters !== undefined) return models.adapters.variables;
  if (models.full !== undefined) return [...new Set(models.full.variables.values())];
  throw new Error('trainedVariables: the run models have neither adapters (LoRA) nor trainable weights (full)');
}

type Swap = <T extends tf.Tensor>(t: T) => T;

function swapLinear(w: LinearWeights, s: Swap): LinearWeights {
  return {
    ...w,
    weight: s(w.weight),
    ...(w.bias === undefined ? {} : { bias: s(w.bias) }),
    ...(w.lora === undefined ? {} : { lora: { ...w.lora, a: s(w.lora.a), b: s(w.lora.b) } }),
  };
}

function swapLayer(l: DecoderLayerWeights, s: Swap): DecoderLayerWeights {
  const a = l.attention;
  return {
    inputNorm: s(l.inputNorm),
    attention: {
      q: swapLinear(a.q, s), k: swapLinear(a.k, s), v: swapLinear(a.v, s), o: swapLinear(a.o, s),
      ...(a.qNorm === undefined ? {} : { qNorm: s(a.qNorm) }),
      ...(a.kNorm === undefined ? {} : { kNorm: s(a.kNorm) }),
    },
    postAttentionNorm: s(l.postAttentionNorm),
    mlp: { gate: swapLinear(l.mlp.gate, s), up: swapLinear(l.mlp.up, s), down: swapLinear(l.mlp.down, s) },
  };
}

/** `weights` with every tensor found in `by` replaced by its value there. */
function swapWeights(weights: CausalLmWeights, by: ReadonlyMap<tf.Tensor, tf.Tensor>): { weights: CausalLmWeights; found: Set<tf.Tensor> } {
  const found = new Set<tf.Tensor>();
  const s: Swap = <T extends tf.Tensor>(t: T): T => {
    const to = by.get(t);
    if (to === undefined) return t;
    found.add(t);
    return to as T;
  };
  const swapped: CausalLmWeights = {
    ...(weights.embedTokens === undefined ? {} : { embedTokens: s(weights.embedTokens) }),
    lmHead: s(weights.lmHead),
    layers: weights.layers.map((l) => swapLayer(l, s)),
    finalNorm: s(weights.finalNorm),
  };
  return { weights: swapped, found };
}

/**
 * A snapshot of `trained` as they are now, and `learner`'s forward pass on it. Every trained
 * variable must be one the forward pass reads (else the agent would silently keep decoding with
 * the learner's variable).
 */
export function snapshotHfWeights(learner: HfCausalLm, trained: readonly tf.Variable[]): HfWeightsSnapshot {
  const tensors = new Map<tf.Variable, tf.Tensor>(trained.map((v) => [v, tf.clone(v)]));
  const dispose = (): void => tensors.forEach((t) => t.dispose());
  const { weights, found } = swapWeights(learner.weights, tensors);
  if (found.size !== tensors.size) {
    const missing = trained.find((v) => !found.has(v));
    dispose();
    throw new Error(`snapshotHfWeights: the model's forward pass does not read the trained variable ${missing?.name ?? '?'} (${found.size} of ${tensors.size} found)`);
  }
  return { model: new HfCausalLm(learner.config, weights), tensors, dispose };
}
