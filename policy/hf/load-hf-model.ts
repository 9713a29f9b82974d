/**
 * Loads a Hugging Face model folder (config.json + safetensors, single or sharded) into an
 * HfCausalLm on the active TF.js backend.
 *
 * Order: config → memory estimate (refused before any weight is read when it cannot fit) →
 * every header → every tensor's shape checked against the config (so a wrong file fails fast,
 * naming the tensor) → tensors read one at a time, converted to float32, transposed where
 * needed and moved to the backend. Peak memory is the model plus about one tensor.
 */
import * as tf from '@tensorflow/tfjs-core';
// A model may be loaded before any backend is chosen: the cpu backend and the gradients are there.
import '../tfjs-runtime.ts';

import type { AttentionWeights } from './attention.ts';
import { HfCausalLm } from './causal-lm.ts';
import { readHfConfig, type HfModelConfig } from './config.ts';
import type { DecoderLayerWeights } from './decoder-layer.ts';
import { HfModelError } from './hf-error.ts';
import type { LinearWeights } from './linear.ts';
import { assertFits, estimateMemory, type MemoryEstimate, type MemoryRequest } from './memory-estimate.ts';
import { WeightFiles } from './safetensors/weight-files.ts';
import { expectedTensors, isIgnorableTensor, layerPrefix } from './tensor-names.ts';

export interface LoadOptions {
  /** What the estimate plans for (default batch 1, context min(max_position_embeddings, 2048)). */
  readonly memory?: Partial<MemoryRequest>;
  /** Backend whose heap limit applies (default: the active one). */
  readonly backend?: string;
}

export interface LoadedHfModel {
  readonly model: HfCausalLm;
  readonly estimate: MemoryEstimate;
}

/** [rows, cols] row-major → [cols, rows]. */
function transpose2d(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let c = 0; c < cols; c++) out[c * rows + r] = data[base + c]!;
  }
  return out;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export async function loadHfModel(dir: string, options: LoadOptions = {}): Promise<LoadedHfModel> {
  const config = await readHfConfig(dir);
  const request: MemoryRequest = {
    batch: options.memory?.batch ?? 1,
    context: options.memory?.context ?? Math.min(config.maxPositionEmbeddings, 2048),
  };
  const estimate = estimateMemory(config, request);
  assertFits(estimate, request, options.backend ?? tf.getBackend(), `${dir}/config.json`);

  const files = await WeightFiles.open(dir);
  const loaded = new Map<string, tf.Tensor>();
  try {
    const expected = expectedTensors(config);
    const wanted = new Set(expected.map((t) => t.name));
    for (const name of files.names) {
      if (!wanted.has(name) && !isIgnorableTensor(name, config)) {
        throw new HfModelError('HF_TENSOR_UNEXPECTED', files.locate(name).file, name, `not part of a ${config.architecture} model with this config.json`);
      }
    }
    for (const t of expected) {
      const { file, entry } = files.locate(t.name);
      if (!sameShape(entry.shape, t.shape)) {
        throw new HfModelError('HF_TENSOR_SHAPE', file, t.name, `shape [${entry.shape.join(', ')}] does not fit config.json (expected [${t.shape.join(', ')}])`);
      }
    }
    for (const t of expected) {
      const data = await files.readFloat32(t.name);
      const tensor = t.transpose
        ? tf.tensor2d(transpose2d(data, t.shape[0]!, t.shape[1]!), [t.shape[1]!, t.shape[0]!])
        : tf.tensor(data, [...t.shape]);
      loaded.set(t.name, tensor);
    }
  } catch (e) {
    tf.dispose([...loaded.values()]);
    throw e;
  } finally {
    await files.close();
  }
  return { model: new HfCausalLm(config, assemble(config, loaded)), estimate };
}

/** Arranges loaded tensors (by transformers name) into the model's weight structure. */
function assemble(config: HfModelConfig, t: ReadonlyMap<string, tf.Tensor>): ConstructorParameters<typeof HfCausalLm>[1] {
  const get = <T extends tf.Tensor>(name: string): T => t.get(name) as T;
  const lin = (name: string): LinearWeights => {
    const bias = t.get(`${name}.bias`) as tf.Tensor1D | undefined;
    return bias === undefined ? { weight: get(`${name}.weight`) } : { weight: get(`${name}.weight`), bias };
  };
  const layers: DecoderLayerWeights[] = [];
  for (let i = 0; i < config.numLayers; i++) {
    const p = layerPrefix(i);
    const base = { q: lin(`${p}.self_attn.q_proj`), k: lin(`${p}.self_attn.k_proj`), v: lin(`${p}.self_attn.v_proj`), o: lin(`${p}.self_attn.o_proj`) };
    const attention: AttentionWeights = config.qkNorm
      ? { ...base, qNorm: get(`${p}.self_attn.q_norm.weight`), kNorm: get(`${p}.self_attn.k_norm.weight`) }
      : base;
    layers.push({
      inputNorm: get(`${p}.input_layernorm.weight`),
      attention,
      postAttentionNorm: get(`${p}.post_attention_layernorm.weight`),
      mlp: { gate: lin(`${p}.mlp.gate_proj`), up: lin(`${p}.mlp.up_proj`), down: lin(`${p}.mlp.down_proj`) },
    });
  }
  const finalNorm = get<tf.Tensor1D>('model.norm.weight');
  const embedding = get<tf.Tensor2D>('model.embed_tokens.weight');
  return config.tieWordEmbeddings
    ? { lmHead: embedding, layers, finalNorm }
    : { embedTokens: embedding, lmHead: get<tf.Tensor2D>('lm_head.weight'), layers, finalNorm };
}
