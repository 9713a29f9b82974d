/**
 * A base model with LoRA adapters attached: `withAdapters` runs the forward pass with every
 * adapted projection's update, `withoutAdapters` is the base model itself (the frozen reference
 * of RL's KL term). Both share the base weights; only the adapters' variables are trainable, so
 * `tf.variableGrads(loss, lora.trainableVariables)` or `optimizer.minimize(loss, false,
 * lora.trainableVariables)` never touches a base weight.
 */
import type * as tf from '@tensorflow/tfjs-core';

import { HfCausalLm, type CausalLmWeights } from '../causal-lm.ts';
import type { DecoderLayerWeights } from '../decoder-layer.ts';
import type { LinearWeights } from '../linear.ts';
import { layerPrefix } from '../tensor-names.ts';
import type { LoraAdapters } from './lora-adapters.ts';
import { loraScale } from './lora-config.ts';
import { LoraError } from './lora-error.ts';

export class LoraCausalLm {
  /** The forward pass with the adapters. Do not dispose it: it shares the base weights. */
  readonly withAdapters: HfCausalLm;

  constructor(
    /** The base model, adapters off. */
    readonly withoutAdapters: HfCausalLm,
    readonly adapters: LoraAdapters,
  ) {
    this.withAdapters = new HfCausalLm(withoutAdapters.config, adaptedWeights(withoutAdapters, adapters));
  }

  get trainableVariables(): tf.Variable[] {
    return this.adapters.variables;
  }

  /** Frees the base weights and the adapters. */
  dispose(): void {
    this.withoutAdapters.dispose();
    this.adapters.dispose();
  }
}

/** Attaches `adapters` to `base`; the result owns both (its dispose frees them). */
export function attachLora(base: HfCausalLm, adapters: LoraAdapters): LoraCausalLm {
  return new LoraCausalLm(base, adapters);
}

function adaptedWeights(base: HfCausalLm, adapters: LoraAdapters): CausalLmWeights {
  const scale = loraScale(adapters.config);
  let used = 0;
  const adapt = (path: string, w: LinearWeights): LinearWeights => {
    const pair = adapters.get(path);
    if (pair === undefined) return w;
    const [inFeatures, outFeatures] = w.weight.shape;
    if (pair.a.shape[0] !== inFeatures || pair.b.shape[1] !== outFeatures) {
      throw new LoraError('LORA_MODEL_MISMATCH', path, `adapter is [${pair.a.shape[0]} → ${pair.b.shape[1]}], the model's projection [${inFeatures} → ${outFeatures}]`);
    }
    used++;
    return { ...w, lora: { a: pair.a, b: pair.b, scale } };
  };
  const layers = base.weights.layers.map((l, i): DecoderLayerWeights => {
    const p = layerPrefix(i);
    const a = l.attention;
    const m = l.mlp;
    return {
      ...l,
      attention: { ...a, q: adapt(`${p}.self_attn.q_proj`, a.q), k: adapt(`${p}.self_attn.k_proj`, a.k), v: adapt(`${p}.self_attn.v_proj`, a.v), o: adapt(`${p}.self_attn.o_proj`, a.o) },
      mlp: { gate: adapt(`${p}.mlp.gate_proj`, m.gate), up: adapt(`${p}.mlp.up_proj`, m.up), down: adapt(`${p}.mlp.down_proj`, m.down) },
    };
  });
  if (used !== adapters.pairs.length) {
    const missing = adapters.pairs.find((pair) => pair.module.layer >= base.weights.layers.length);
    throw new LoraError('LORA_MODEL_MISMATCH', missing?.module.path ?? 'layers', `the adapters cover ${adapters.pairs.length} projections, the model has ${used} of them`);
  }
  return { ...base.weights, layers };
}
