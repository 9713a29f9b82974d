/**
 * Reading a Hugging Face run's checkpoint (hf-format.ts), with every check of the transformer's
 * (verified-files.ts: manifest, presence, size, SHA-256, JSON and schema, the optimizer blob), then
 * the model files against the model: the adapters through loadPeftAdapter (against the base
 * model's config.json), or every weight against the checkpoint's config.json. Each error names the
 * file and the field; the transformer's checkpoint is CKPT_INCOMPATIBLE here, saying what it is.
 */
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { errorMessage } from '../../envs/error-message.ts';
import { parseHfConfig, readHfConfig, type HfModelConfig } from '../../policy/hf/config.ts';
import { loadPeftAdapter } from '../../policy/hf/lora/load-peft-adapter.ts';
import type { LoraAdapters } from '../../policy/hf/lora/lora-adapters.ts';
import { CheckpointError, type CheckpointManifest } from './format.ts';
import { HF_CHECKPOINT_FILES, HfCheckpointStateSchema, type HfCheckpointData, type HfCheckpointState } from './hf-format.ts';
import { readNamedWeights } from './hf-weights.ts';
import { locateCheckpoint } from './read.ts';
import { checkBlob, checkStep, parseFile, parseJson, readAllVerified, readManifest, readVerified } from './verified-files.ts';

export interface ReadHfCheckpointOptions {
  /** The base model's config (mode "lora"); default: read from state.json's `hf.base`. */
  readonly model?: HfModelConfig;
}

export interface HfCheckpoint {
  readonly dir: string;
  /** `adapters` (fresh trainable variables) in mode "lora", `weights` in mode "full"; the caller disposes them. */
  readonly data: HfCheckpointData;
  /** The model's config: the base's (mode "lora") or the checkpoint's config.json (mode "full"). */
  readonly config: HfModelConfig;
}

const corrupt = (detail: string): CheckpointError => new CheckpointError('CKPT_CORRUPT', detail);

/** The base model's config, which must be the model the run trained (state.json says which). */
async function baseConfig(dir: string, state: HfCheckpointState, given: HfModelConfig | undefined): Promise<HfModelConfig> {
  const stateFile = path.join(dir, 'state.json');
  let config: HfModelConfig;
  try {
    config = given ?? (await readHfConfig(state.hf.base));
  } catch (error) {
    throw new CheckpointError('CKPT_INCOMPATIBLE', `${stateFile}: field 'hf.base': the base model folder ${state.hf.base} cannot be read (${errorMessage(error)})`);
  }
  if (config.architecture !== state.hf.modelType || config.vocabSize !== state.hf.vocabSize) {
    throw new CheckpointError(
      'CKPT_INCOMPATIBLE',
      `${stateFile}: field 'hf': the run trained a ${state.hf.modelType} model with vocabulary ${state.hf.vocabSize}, the base model is a ${config.architecture} with ${config.vocabSize}`,
    );
  }
  return config;
}

async function readAdapters(dir: string, state: HfCheckpointState, config: HfModelConfig): Promise<LoraAdapters> {
  let adapters: LoraAdapters;
  try {
    adapters = (await loadPeftAdapter(dir, config)).adapters;
  } catch (error) {
    throw corrupt(errorMessage(error));
  }
  const saved = state.hf.lora!;
  const ours = adapters.config;
  if (ours.r !== saved.r || ours.alpha !== saved.alpha || ours.useRslora !== saved.useRslora || ours.targetModules.join() !== saved.targetModules.join()) {
    adapters.dispose();
    throw corrupt(`${path.join(dir, 'adapter_config.json')} does not match ${path.join(dir, 'state.json')} field 'hf.lora' (${JSON.stringify(ours)} vs ${JSON.stringify(saved)})`);
  }
  return adapters;
}

async function readFullWeights(dir: string, manifest: CheckpointManifest): Promise<{ config: HfModelConfig; weights: Record<string, tf.Tensor> }> {
  const configFile = path.join(dir, 'config.json');
  const files = await readAllVerified(dir, manifest, ['config.json', 'model.safetensors'] as const);
  let config: HfModelConfig;
  try {
    config = parseHfConfig(parseJson(configFile, files['config.json']), configFile);
  } catch (error) {
    throw error instanceof CheckpointError ? error : corrupt(errorMessage(error));
  }
  try {
    return { config, weights: await readNamedWeights(path.join(dir, 'model.safetensors'), config) };
  } catch (error) {
    throw corrupt(errorMessage(error));
  }
}

/** Reads the checkpoint at `location` (a checkpoint folder, or a run folder holding `checkpoint/`). */
export async function readHfCheckpoint(location: string, options: ReadHfCheckpointOptions = {}): Promise<HfCheckpoint> {
  const dir = await locateCheckpoint(location);
  const manifest = await readManifest(dir, 'hf', ['state.json', 'optimizer.bin']);
  const state = parseFile(HfCheckpointStateSchema, path.join(dir, 'state.json'), await readVerified(dir, manifest, 'state.json'));
  checkStep(dir, manifest, state.step);
  const wanted = HF_CHECKPOINT_FILES[state.hf.mode];
  for (const name of wanted) {
    if (!(name in manifest.files)) throw corrupt(`${path.join(dir, 'manifest.json')} does not list ${name} (state.json says mode "${state.hf.mode}")`);
  }
  const optimizer = await readVerified(dir, manifest, 'optimizer.bin');
  checkBlob(path.join(dir, 'optimizer.bin'), optimizer);
  if (state.hf.mode === 'full') {
    const { config, weights } = await readFullWeights(dir, manifest);
    return { dir, config, data: { state, weights, optimizer } };
  }
  await readAllVerified(dir, manifest, wanted.slice(1, 3));
  const config = await baseConfig(dir, state, options.model);
  return { dir, config, data: { state, adapters: await readAdapters(dir, state, config), optimizer } };
}

/** Frees the tensors a read gave (adapters or weights). */
export function disposeHfCheckpoint(data: HfCheckpointData): void {
  data.adapters?.dispose();
  if (data.weights !== undefined) tf.dispose(Object.values(data.weights));
}
