/**
 * The tensors a model of a given config must have, by their transformers names, with the shape
 * transformers stores ([out, in] for a Linear) and whether the loader transposes them to the
 * [in, out] layout of policy/hf/linear.ts.
 */
import type { HfModelConfig } from './config.ts';

export interface ExpectedTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly transpose: boolean;
}

/** Tensors some checkpoints carry that the model recomputes (old RoPE caches). */
export function isIgnorableTensor(name: string, config: HfModelConfig): boolean {
  return name.endsWith('.rotary_emb.inv_freq') || (config.tieWordEmbeddings && name === 'lm_head.weight');
}

export function layerPrefix(i: number): string {
  return `model.layers.${i}`;
}

export function expectedTensors(config: HfModelConfig): ExpectedTensor[] {
  const { hiddenSize: H, intermediateSize: I, vocabSize: V, numHeads, numKvHeads, headDim } = config;
  const out: ExpectedTensor[] = [];
  const linear = (name: string, outDim: number, inDim: number, bias = false): void => {
    out.push({ name: `${name}.weight`, shape: [outDim, inDim], transpose: true });
    if (bias) out.push({ name: `${name}.bias`, shape: [outDim], transpose: false });
  };
  const vector = (name: string, n: number): void => {
    out.push({ name, shape: [n], transpose: false });
  };
  // Tied: the embedding is loaded transposed once and serves as the output head too.
  out.push({ name: 'model.embed_tokens.weight', shape: [V, H], transpose: config.tieWordEmbeddings });
  for (let i = 0; i < config.numLayers; i++) {
    const p = layerPrefix(i);
    vector(`${p}.input_layernorm.weight`, H);
    linear(`${p}.self_attn.q_proj`, numHeads * headDim, H, config.qkvBias);
    linear(`${p}.self_attn.k_proj`, numKvHeads * headDim, H, config.qkvBias);
    linear(`${p}.self_attn.v_proj`, numKvHeads * headDim, H, config.qkvBias);
    linear(`${p}.self_attn.o_proj`, H, numHeads * headDim);
    if (config.qkNorm) {
      vector(`${p}.self_attn.q_norm.weight`, headDim);
      vector(`${p}.self_attn.k_norm.weight`, headDim);
    }
    vector(`${p}.post_attention_layernorm.weight`, H);
    linear(`${p}.mlp.gate_proj`, I, H);
    linear(`${p}.mlp.up_proj`, I, H);
    linear(`${p}.mlp.down_proj`, H, I);
  }
  vector('model.norm.weight', H);
  if (!config.tieWordEmbeddings) linear('lm_head', V, H);
  return out;
}
