/**
 * A Hugging Face run's checkpoint written out as what other tools load (`actorgym export`):
 *
 *   peft     a PEFT LoRA adapter folder: adapter_config.json (base_model_name_or_path: the base
 *            folder, or the name given) + adapter_model.safetensors. peft, transformers and vLLM
 *            load it on top of the base model. Refused for a full-fine-tuning run (no adapter).
 *   merged   a full model folder: config.json (the base's), model.safetensors (every weight, with
 *            the LoRA update W + scale·A·B merged in, or the full run's weights) and the base's
 *            tokenizer and generation files, copied when present.
 *
 * Stored as float32 unless another dtype is asked for (bf16, f16: rounded to nearest even);
 * config.json's dtype entry then says so. The folder is written atomically (atomic-folder.ts).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadHfModel } from '../../policy/hf/load-hf-model.ts';
import { loraScale } from '../../policy/hf/lora/lora-config.ts';
import { LoraError } from '../../policy/hf/lora/lora-error.ts';
import { mergedWeight } from '../../policy/hf/lora/merge-lora.ts';
import { ADAPTER_CONFIG_FILE } from '../../policy/hf/lora/peft-config.ts';
import { ADAPTER_WEIGHTS_FILE } from '../../policy/hf/lora/peft-tensor-names.ts';
import type { FloatDtype } from '../../policy/hf/safetensors/dtypes.ts';
import { exists } from './verified-files.ts';
import { CheckpointError } from './format.ts';
import { encodePeftAdapter } from '../../policy/hf/lora/encode-peft-adapter.ts';
import { disposeHfCheckpoint, readHfCheckpoint, type HfCheckpoint } from './hf-read.ts';
import { namedWeights, writeNamedWeights, type ReplaceTensor } from './hf-weights.ts';
import { OutExistsError, occupied, writeFolderAtomically, type FolderSource } from './atomic-folder.ts';

export const EXPORT_FORMATS = ['peft', 'merged'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_DTYPES = ['f32', 'bf16', 'f16'] as const;
export type ExportDtype = (typeof EXPORT_DTYPES)[number];

const SAFETENSORS_DTYPE: Readonly<Record<ExportDtype, FloatDtype>> = { f32: 'F32', bf16: 'BF16', f16: 'F16' };
const TORCH_DTYPE: Readonly<Record<ExportDtype, string>> = { f32: 'float32', bf16: 'bfloat16', f16: 'float16' };

/** The base folder's files a merged model folder carries along, when the base has them. */
export const COPIED_BASE_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'chat_template.jinja',
  'generation_config.json',
  'special_tokens_map.json',
  'vocab.json',
  'merges.txt',
] as const;

export interface ExportOptions {
  readonly format: ExportFormat;
  /** The folder to write; refused when it exists and is not empty, unless `force`. */
  readonly out: string;
  /** Default f32. */
  readonly dtype?: ExportDtype;
  readonly force?: boolean;
  /** peft: base_model_name_or_path to record (e.g. a hub id); default the base folder's absolute path. */
  readonly baseModelName?: string;
}

export interface ExportResult {
  readonly out: string;
  readonly format: ExportFormat;
  readonly dtype: ExportDtype;
  /** The checkpoint folder read, its step and its training mode. */
  readonly checkpoint: string;
  readonly step: number;
  readonly mode: 'lora' | 'full';
  readonly files: readonly { readonly name: string; readonly bytes: number }[];
}

type Files = [string, FolderSource][];

async function peftFiles(ckpt: HfCheckpoint, options: ExportOptions, dtype: ExportDtype): Promise<Files> {
  const { data, dir } = ckpt;
  if (data.adapters === undefined) {
    throw new CheckpointError(
      'CKPT_INCOMPATIBLE',
      `${dir} is a full fine-tuning run (state.json hf.mode "full"): it has no LoRA adapter to export as peft; use --format merged for a model folder`,
    );
  }
  const files = await encodePeftAdapter(data.adapters, options.baseModelName ?? data.state.hf.base, SAFETENSORS_DTYPE[dtype]);
  return [[ADAPTER_CONFIG_FILE, files[ADAPTER_CONFIG_FILE]], [ADAPTER_WEIGHTS_FILE, files[ADAPTER_WEIGHTS_FILE]]];
}

/**
 * model.safetensors of the merged model: the full run's weights, or the base's with each adapted
 * projection merged (W + scale·A·B) only as it is written, so the base plus one merged tensor is in
 * memory at a time. `dispose` frees the base after writing.
 */
async function mergedWeights(ckpt: HfCheckpoint, dtype: ExportDtype): Promise<{ source: FolderSource; dispose: () => void }> {
  const { data, config } = ckpt;
  const st = SAFETENSORS_DTYPE[dtype];
  if (data.weights !== undefined) return { source: { writeTo: (file) => writeNamedWeights(file, config, data.weights!, st) }, dispose: () => {} };
  const adapters = data.adapters!;
  // Only the weights are needed: no KV cache or activations to plan for.
  const { model } = await loadHfModel(data.state.hf.base, { memory: { batch: 1, context: 1 } });
  const scale = loraScale(adapters.config);
  const merge: ReplaceTensor = (name, tensor) => {
    const pair = name.endsWith('.weight') ? adapters.get(name.slice(0, -'.weight'.length)) : undefined;
    return pair === undefined ? undefined : mergedWeight(tensor as tf.Tensor2D, pair, scale);
  };
  try {
    const named = namedWeights(config, model.weights);
    // Every adapter must land on a projection of its shape, checked before anything is written.
    for (const { module, a, b } of adapters.pairs) {
      const w = named[`${module.path}.weight`];
      if (w?.shape[0] !== a.shape[0] || w.shape[1] !== b.shape[1]) {
        throw new LoraError('LORA_MODEL_MISMATCH', module.path, `adapter is [${a.shape[0]} → ${b.shape[1]}], the base model ${w === undefined ? 'has no such projection' : `has [${w.shape.join(' → ')}]`}`);
      }
    }
    return { source: { writeTo: (file) => writeNamedWeights(file, config, named, st, merge) }, dispose: () => model.dispose() };
  } catch (e) {
    model.dispose();
    throw e;
  }
}

/** config.json of the merged folder: the model's own, its dtype entry set to what was written. */
async function mergedConfig(ckpt: HfCheckpoint, dtype: ExportDtype): Promise<Uint8Array> {
  const source = ckpt.data.state.hf.mode === 'full' ? path.join(ckpt.dir, 'config.json') : path.join(ckpt.data.state.hf.base, 'config.json');
  const json = JSON.parse(await readFile(source, 'utf8')) as Record<string, unknown>;
  // transformers 5 writes `dtype`, 4.x `torch_dtype`: keep the key the folder uses.
  json['dtype' in json ? 'dtype' : 'torch_dtype'] = TORCH_DTYPE[dtype];
  return new TextEncoder().encode(`${JSON.stringify(json, null, 2)}\n`);
}

async function mergedFiles(ckpt: HfCheckpoint, dtype: ExportDtype): Promise<{ files: Files; dispose: () => void }> {
  const config = await mergedConfig(ckpt, dtype);
  const weights = await mergedWeights(ckpt, dtype);
  const files: Files = [['config.json', config], ['model.safetensors', weights.source]];
  for (const name of COPIED_BASE_FILES) {
    const from = path.join(ckpt.data.state.hf.base, name);
    if (await exists(from)) files.push([name, { copyFrom: from }]);
  }
  return { files, dispose: weights.dispose };
}

/** Exports the checkpoint at `location` (a checkpoint or run folder); see the module note. */
export async function exportHfCheckpoint(location: string, options: ExportOptions): Promise<ExportResult> {
  const dtype = options.dtype ?? 'f32';
  const out = path.resolve(options.out);
  // Refused before the (possibly large) checkpoint is read.
  if (!options.force && (await occupied(out))) throw new OutExistsError(out);
  const ckpt = await readHfCheckpoint(location);
  try {
    const { files, dispose } = options.format === 'peft' ? { files: await peftFiles(ckpt, options, dtype), dispose: () => {} } : await mergedFiles(ckpt, dtype);
    try {
      await writeFolderAtomically(out, files, { force: options.force ?? false });
    } finally {
      dispose();
    }
    const sizes = await Promise.all(files.map(async ([name, source]) => ({ name, bytes: source instanceof Uint8Array ? source.byteLength : (await stat(path.join(out, name))).size })));
    return { out, format: options.format, dtype, checkpoint: ckpt.dir, step: ckpt.data.state.step, mode: ckpt.data.state.hf.mode, files: sizes };
  } finally {
    disposeHfCheckpoint(ckpt.data);
  }
}
