/**
 * LoRA adapters merged into a base model's weights: every adapted projection's weight becomes
 * W + scale · A · B (in the [in, out] layout of policy/hf/linear.ts; transformers' [out, in] is its
 * transpose), which computes what the base with the adapters attached computes, without the
 * adapters. This is what peft's `merge_and_unload()` does, and what `actorgym export --format
 * merged` writes.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { CausalLmWeights } from '../causal-lm.ts';
import type { DecoderLayerWeights } from '../decoder-layer.ts';
import type { LinearWeights } from '../linear.ts';
import { layerPrefix } from '../tensor-names.ts';
import type { LoraAdapters, LoraPair } from './lora-adapters.ts';
import { loraScale } from './lora-config.ts';
import { LoraError } from './lora-error.ts';

export interface MergedWeights {
  /** The base's weights with each adapted projection replaced by its merged weight. */
  readonly weights: CausalLmWeights;
  /** The new tensors (the merged projections): dispose these; the rest are the base's. */
  readonly created: readonly tf.Tensor[];
}

/** One projection's merged weight W + scale · A · B ([in, out]), a new tensor. */
export function mergedWeight(weight: tf.Tensor2D, pair: Pick<LoraPair, 'a' | 'b'>, scale: number): tf.Tensor2D {
  return tf.tidy(() => tf.add(weight, tf.mul(tf.matMul(pair.a, pair.b), scale)) as tf.Tensor2D);
}

/**
 * Merges `adapters` into `base` (neither is changed nor disposed). The result shares every
 * unadapted tensor with `base`.
 */
export function mergeLora(base: CausalLmWeights, adapters: LoraAdapters): MergedWeights {
  const scale = loraScale(adapters.config);
  const created: tf.Tensor[] = [];
  let used = 0;
  const merge = (path: string, w: LinearWeights): LinearWeights => {
    const pair = adapters.get(path);
    if (pair === undefined) return w;
    if (w.lora !== undefined) throw new LoraError('LORA_MODEL_MISMATCH', path, 'already has an adapter attached; merge into the base weights');
    const [inFeatures, outFeatures] = w.weight.shape;
    if (pair.a.shape[0] !== inFeatures || pair.b.shape[1] !== outFeatures) {
      throw new LoraError('LORA_MODEL_MISMATCH', path, `adapter is [${pair.a.shape[0]} → ${pair.b.shape[1]}], the model's projection [${inFeatures} → ${outFeatures}]`);
    }
    const weight = mergedWeight(w.weight, pair, scale);
    created.push(weight);
    used++;
    return { ...w, weight };
  };
  try {
    const layers = base.layers.map((l, i): DecoderLayerWeights => {
      const p = layerPrefix(i);
      const a = l.attention;
      const m = l.mlp;
      return {
        ...l,
        attention: { ...a, q: merge(`${p}.self_attn.q_proj`, a.q), k: merge(`${p}.self_attn.k_proj`, a.k), v: merge(`${p}.self_attn.v_proj`, a.v), o: merge(`${p}.self_attn.o_proj`, a.o) },
        mlp: { gate: merge(`${p}.mlp.gate_proj`, m.gate), up: merge(`${p}.mlp.up_proj`, m.up), down: merge(`${p}.mlp.down_proj`, m.down) },
      };
    });
    if (used !== adapters.pairs.length) {
      throw new LoraError('LORA_MODEL_MISMATCH', 'layers', `the adapters cover ${adapters.pairs.length} projections, the model has ${used} of them`);
    }
    return { weights: { ...base, layers }, created };
  } catch (e) {
    tf.dispose(created);
    throw e;
  }
}
