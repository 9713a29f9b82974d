/**
 * Reads a peft LoRA adapter folder (adapter_config.json + adapter_model.safetensors) as trainable
 * LoraAdapters for a given base model, to serve it or to resume training from it.
 *
 * Every tensor the config implies must be present with its shape, and nothing else may be
 * (embedding adapters, DoRA magnitudes, saved modules): each problem is an HfModelError naming the
 * file and the tensor or config field. F32, F16 and BF16 are read (as float32).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

import * as tf from '@tensorflow/tfjs-core';

import type { HfModelConfig } from '../config.ts';
import { HfModelError } from '../hf-error.ts';
import { SafetensorsFile } from '../safetensors/safetensors-file.ts';
import { LoraAdapters, trainable, type LoraPair } from './lora-adapters.ts';
import { loraModules } from './lora-modules.ts';
import { ADAPTER_CONFIG_FILE, parsePeftConfig } from './peft-config.ts';
import { ADAPTER_WEIGHTS_FILE, peftTensorName } from './peft-tensor-names.ts';
import { transposed } from './transpose.ts';

export interface LoadedPeftAdapter {
  readonly adapters: LoraAdapters;
  /** base_model_name_or_path from adapter_config.json, if it has one. */
  readonly baseModelNameOrPath: string | null;
}

async function readConfigJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new HfModelError('HF_CONFIG_INVALID', file, '(file)', 'cannot be read; a peft adapter folder holds adapter_config.json');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new HfModelError('HF_CONFIG_INVALID', file, '(root)', `not valid JSON (${(e as Error).message})`);
  }
}

export async function loadPeftAdapter(dir: string, model: HfModelConfig): Promise<LoadedPeftAdapter> {
  const configFile = path.join(dir, ADAPTER_CONFIG_FILE);
  const { config, baseModelNameOrPath } = parsePeftConfig(await readConfigJson(configFile), configFile);
  const weightsFile = path.join(dir, ADAPTER_WEIGHTS_FILE);
  try {
    await stat(weightsFile);
  } catch {
    throw new HfModelError('HF_TENSOR_MISSING', weightsFile, '(file)', 'missing (only safetensors adapters are read, not adapter_model.bin)');
  }
  const file = await SafetensorsFile.open(weightsFile);
  const pairs: LoraPair[] = [];
  try {
    const modules = loraModules(model, config.targetModules);
    const expected = new Map<string, number[]>();
    for (const m of modules) {
      expected.set(peftTensorName(m.path, 'A'), [config.r, m.inFeatures]);
      expected.set(peftTensorName(m.path, 'B'), [m.outFeatures, config.r]);
    }
    for (const name of file.tensorNames) {
      if (!expected.has(name)) throw new HfModelError('HF_TENSOR_UNEXPECTED', weightsFile, name, `not a LoRA weight of target_modules [${config.targetModules.join(', ')}] on this ${model.architecture} model`);
    }
    for (const [name, shape] of expected) {
      const got = file.entry(name).shape;
      if (got.length !== 2 || got[0] !== shape[0] || got[1] !== shape[1]) {
        throw new HfModelError('HF_TENSOR_SHAPE', weightsFile, name, `shape [${got.join(', ')}] does not fit r ${config.r} and the model (expected [${shape.join(', ')}])`);
      }
    }
    for (const module of modules) {
      const a = await file.readFloat32(peftTensorName(module.path, 'A'));
      const b = await file.readFloat32(peftTensorName(module.path, 'B'));
      pairs.push({
        module,
        a: trainable(tf.tensor2d(transposed(a, config.r, module.inFeatures), [module.inFeatures, config.r])),
        b: trainable(tf.tensor2d(transposed(b, module.outFeatures, config.r), [config.r, module.outFeatures])),
      });
    }
  } catch (e) {
    for (const p of pairs) tf.dispose([p.a, p.b]);
    throw e;
  } finally {
    await file.close();
  }
  return { adapters: new LoraAdapters(config, pairs), baseModelNameOrPath };
}
