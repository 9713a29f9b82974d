/**
 * Every weight of an HfCausalLm by its transformers tensor name (policy/hf/tensor-names.ts), and
 * a copy of the weight structure with each weight replaced. LoRA adapters on the projections are
 * carried over unchanged. Tied models have one tensor, `model.embed_tokens.weight`, stored as the
 * [hidden, vocab] output head.
 */
import type * as tf from '@tensorflow/tfjs-core';

import type { AttentionWeights } from '../attention.ts';
import type { CausalLmWeights } from '../causal-lm.ts';
import type { HfModelConfig } from '../config.ts';
import type { DecoderLayerWeights } from '../decoder-layer.ts';
import type { LinearWeights } from '../linear.ts';
import { layerPrefix } from '../tensor-names.ts';

/** Called once per weight with its transformers name; returns the tensor to put in its place. */
export type WeightMapper = (name: string, tensor: tf.Tensor) => tf.Tensor;

function mapLinear(name: string, w: LinearWeights, f: WeightMapper): LinearWeights {
  const weight = f(`${name}.weight`, w.weight) as tf.Tensor2D;
  const bias = w.bias === undefined ? undefined : (f(`${name}.bias`, w.bias) as tf.Tensor1D);
  return { ...w, weight, ...(bias === undefined ? {} : { bias }) };
}

function mapLayer(i: number, l: DecoderLayerWeights, f: WeightMapper): DecoderLayerWeights {
  const p = layerPrefix(i);
  const a = l.attention;
  const attention: AttentionWeights = {
    q: mapLinear(`${p}.self_attn.q_proj`, a.q, f),
    k: mapLinear(`${p}.self_attn.k_proj`, a.k, f),
    v: mapLinear(`${p}.self_attn.v_proj`, a.v, f),
    o: mapLinear(`${p}.self_attn.o_proj`, a.o, f),
    ...(a.qNorm === undefined ? {} : { qNorm: f(`${p}.self_attn.q_norm.weight`, a.qNorm) as tf.Tensor1D }),
    ...(a.kNorm === undefined ? {} : { kNorm: f(`${p}.self_attn.k_norm.weight`, a.kNorm) as tf.Tensor1D }),
  };
  return {
    inputNorm: f(`${p}.input_layernorm.weight`, l.inputNorm) as tf.Tensor1D,
    attention,
    postAttentionNorm: f(`${p}.post_attention_layernorm.weight`, l.postAttentionNorm) as tf.Tensor1D,
    mlp: { gate: mapLinear(`${p}.mlp.gate_proj`, l.mlp.gate, f), up: mapLinear(`${p}.mlp.up_proj`, l.mlp.up, f), down: mapLinear(`${p}.mlp.down_proj`, l.mlp.down, f) },
  };
}

/** The weights with each one replaced by `f(name, tensor)`, in transformers' order. */
export function mapModelWeights(config: HfModelConfig, w: CausalLmWeights, f: WeightMapper): CausalLmWeights {
  const tied = w.embedTokens === undefined;
  if (tied !== config.tieWordEmbeddings) throw new Error(`mapModelWeights: config.tie_word_embeddings is ${config.tieWordEmbeddings} but the weights ${tied ? 'have no' : 'have an'} embed_tokens`);
  const embedTokens = tied ? undefined : (f('model.embed_tokens.weight', w.embedTokens!) as tf.Tensor2D);
  const lmHeadIfTied = tied ? (f('model.embed_tokens.weight', w.lmHead) as tf.Tensor2D) : undefined;
  const layers = w.layers.map((l, i) => mapLayer(i, l, f));
  const finalNorm = f('model.norm.weight', w.finalNorm) as tf.Tensor1D;
  if (tied) return { lmHead: lmHeadIfTied!, layers, finalNorm };
  return { embedTokens: embedTokens!, lmHead: f('lm_head.weight', w.lmHead) as tf.Tensor2D, layers, finalNorm };
}
