/**
 * A Hugging Face model's weights by their transformers names, between the model's structure
 * (policy/hf/causal-lm.ts), a name → tensor record and a safetensors file.
 *
 * In memory, tensors keep the layout loadHfModel gives the model: projections [in, out], the tied
 * embedding as the [hidden, vocab] output head (tensor-names.ts: `transpose`). On disk they are in
 * transformers' layout ([out, in]), so the file is a `model.safetensors` transformers loads.
 */
import { open } from 'node:fs/promises';
import * as tf from '@tensorflow/tfjs-core';
import type { CausalLmWeights } from '../../policy/hf/causal-lm.ts';
import type { HfModelConfig } from '../../policy/hf/config.ts';
import type { LinearWeights } from '../../policy/hf/linear.ts';
import { transposed } from '../../policy/hf/lora/transpose.ts';
import { DTYPE_BYTES, fromFloat32, type FloatDtype } from '../../policy/hf/safetensors/dtypes.ts';
import { SafetensorsFile } from '../../policy/hf/safetensors/safetensors-file.ts';
import { encodeSafetensors, type Float32Tensor } from '../../policy/hf/safetensors/write-safetensors.ts';
import { expectedTensors, isIgnorableTensor, layerPrefix } from '../../policy/hf/tensor-names.ts';

/** Every weight of a model by its transformers name (the tensors themselves, not copies). */
export function namedWeights(config: HfModelConfig, weights: CausalLmWeights): Record<string, tf.Tensor> {
  const out: Record<string, tf.Tensor> = {};
  const linear = (name: string, w: LinearWeights): void => {
    if (w.lora !== undefined) throw new Error(`${name}: has a LoRA adapter attached; merge it (policy/hf/lora/merge-lora.ts) or name the base weights`);
    out[`${name}.weight`] = w.weight;
    if (w.bias !== undefined) out[`${name}.bias`] = w.bias;
  };
  out['model.embed_tokens.weight'] = config.tieWordEmbeddings ? weights.lmHead : weights.embedTokens!;
  weights.layers.forEach((l, i) => {
    const p = layerPrefix(i);
    out[`${p}.input_layernorm.weight`] = l.inputNorm;
    linear(`${p}.self_attn.q_proj`, l.attention.q);
    linear(`${p}.self_attn.k_proj`, l.attention.k);
    linear(`${p}.self_attn.v_proj`, l.attention.v);
    linear(`${p}.self_attn.o_proj`, l.attention.o);
    if (l.attention.qNorm !== undefined) out[`${p}.self_attn.q_norm.weight`] = l.attention.qNorm;
    if (l.attention.kNorm !== undefined) out[`${p}.self_attn.k_norm.weight`] = l.attention.kNorm;
    out[`${p}.post_attention_layernorm.weight`] = l.postAttentionNorm;
    linear(`${p}.mlp.gate_proj`, l.mlp.gate);
    linear(`${p}.mlp.up_proj`, l.mlp.up);
    linear(`${p}.mlp.down_proj`, l.mlp.down);
  });
  out['model.norm.weight'] = weights.finalNorm;
  if (!config.tieWordEmbeddings) out['lm_head.weight'] = weights.lmHead;
  return out;
}

const shapeText = (shape: readonly number[]): string => `[${shape.join(', ')}]`;

interface PlannedTensor {
  readonly name: string;
  /** transformers' shape (on disk). */
  readonly shape: readonly number[];
  readonly tensor: tf.Tensor;
  /** [rows, cols] of the in-memory tensor when it is stored transposed. */
  readonly transposeFrom?: readonly [number, number];
}

/** Every tensor the config implies, in transformers' order, checked present with its shape; nothing else allowed. */
function plan(config: HfModelConfig, named: Readonly<Record<string, tf.Tensor>>): PlannedTensor[] {
  const expected = expectedTensors(config);
  const wanted = new Set(expected.map((t) => t.name));
  for (const name of Object.keys(named)) {
    if (!wanted.has(name)) throw new Error(`weights: ${name} is not part of a ${config.architecture} model with this config`);
  }
  return expected.map((t): PlannedTensor => {
    const tensor = named[t.name];
    if (tensor === undefined) throw new Error(`weights: ${t.name} is missing`);
    const inMemory = t.transpose ? [t.shape[1]!, t.shape[0]!] : t.shape;
    if (shapeText(tensor.shape) !== shapeText(inMemory)) throw new Error(`weights: ${t.name} has shape ${shapeText(tensor.shape)}, expected ${shapeText(inMemory)}`);
    return t.transpose ? { name: t.name, shape: t.shape, tensor, transposeFrom: [inMemory[0]!, inMemory[1]!] } : { name: t.name, shape: t.shape, tensor };
  });
}

/**
 * Stands in for a tensor at write time (same shape), e.g. a LoRA-merged weight computed only when
 * it is written; the writer disposes what it returns.
 */
export type ReplaceTensor = (name: string, tensor: tf.Tensor) => tf.Tensor | undefined;

/** One tensor's values as transformers stores them. */
async function onDisk(t: PlannedTensor, replace?: ReplaceTensor): Promise<Float32Array> {
  const stand = replace?.(t.name, t.tensor);
  if (stand !== undefined && shapeText(stand.shape) !== shapeText(t.tensor.shape)) {
    stand.dispose();
    throw new Error(`weights: the replacement of ${t.name} has shape ${shapeText(stand.shape)}, expected ${shapeText(t.tensor.shape)}`);
  }
  try {
    const data = (await (stand ?? t.tensor).data()) as Float32Array;
    return t.transposeFrom === undefined ? data : transposed(data, t.transposeFrom[0], t.transposeFrom[1]);
  } finally {
    stand?.dispose();
  }
}

/**
 * The weights as a safetensors file in transformers' names and layout, stored as `dtype`, in
 * memory. Every tensor the config implies must be there with its shape, and nothing else.
 */
export async function encodeNamedWeights(config: HfModelConfig, named: Readonly<Record<string, tf.Tensor>>, dtype: FloatDtype = 'F32'): Promise<Uint8Array> {
  const tensors: Float32Tensor[] = [];
  for (const t of plan(config, named)) tensors.push({ name: t.name, shape: t.shape, data: await onDisk(t), dtype });
  return encodeSafetensors(tensors, { format: 'pt' });
}

/**
 * The same file as encodeNamedWeights, written to `file` one tensor at a time (the header first,
 * from the shapes), so a large model needs about one tensor of extra memory, not the whole file.
 * `replace` may stand in for any tensor as it is written.
 */
export async function writeNamedWeights(
  file: string,
  config: HfModelConfig,
  named: Readonly<Record<string, tf.Tensor>>,
  dtype: FloatDtype = 'F32',
  replace?: ReplaceTensor,
): Promise<void> {
  const tensors = plan(config, named);
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype]!;
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  // Padded with spaces to a multiple of 8 bytes, as encodeSafetensors (and safetensors itself) does.
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const jsonBytes = new TextEncoder().encode(json);
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(jsonBytes.length), true);
  const handle = await open(file, 'w');
  try {
    await handle.write(prefix);
    await handle.write(jsonBytes);
    for (const t of tensors) await handle.write(fromFloat32(await onDisk(t, replace), dtype));
  } finally {
    await handle.close();
  }
}

/** Reads a model.safetensors of this config into the in-memory layout; errors name the file and the tensor. */
export async function readNamedWeights(file: string, config: HfModelConfig): Promise<Record<string, tf.Tensor>> {
  const st = await SafetensorsFile.open(file);
  const out: Record<string, tf.Tensor> = {};
  try {
    const expected = expectedTensors(config);
    const wanted = new Set(expected.map((t) => t.name));
    for (const name of st.tensorNames) {
      if (!wanted.has(name) && !isIgnorableTensor(name, config)) throw new Error(`${file}: ${name} is not part of a ${config.architecture} model with this config.json`);
    }
    for (const t of expected) {
      if (!st.tensorNames.includes(t.name)) throw new Error(`${file}: ${t.name} is missing`);
      const got = st.entry(t.name).shape;
      if (shapeText(got) !== shapeText(t.shape)) throw new Error(`${file}: ${t.name} has shape ${shapeText(got)}, config.json implies ${shapeText(t.shape)}`);
    }
    for (const t of expected) {
      const data = await st.readFloat32(t.name);
      out[t.name] = t.transpose ? tf.tensor2d(transposed(data, t.shape[0]!, t.shape[1]!), [t.shape[1]!, t.shape[0]!]) : tf.tensor(data, [...t.shape]);
    }
  } catch (e) {
    tf.dispose(Object.values(out));
    throw e;
  } finally {
    await st.close();
  }
  return out;
}
