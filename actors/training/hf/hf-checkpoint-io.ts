/**
 * A Hugging Face run's checkpoint through learner/checkpoint/hf-checkpoint.ts: the adapters (or
 * full weights), Adam's state and the run's state on save; on load, the folders the models
 * continue from and the optimizer state to restore.
 */
import * as tf from '@tensorflow/tfjs-core';
import { readHfCheckpoint, writeHfCheckpoint, type HfCheckpointState } from '../../../learner/checkpoint/hf-checkpoint.ts';
import type { WriteCheckpointOptions } from '../../../learner/checkpoint/write.ts';
import type { HfRunModels } from '../../../learner/hf/hf-run-models.ts';
import type { HfRunSettings } from '../../../learner/hf-settings.ts';
import { countParameters } from '../../../policy/hf/memory-estimate.ts';
import { decodeWeights, encodeWeights } from '../../../policy/transformer/weights-io.ts';
import type { RunState } from '../run-model.ts';

export async function saveHfRun(dir: string, models: HfRunModels, state: RunState, settings: HfRunSettings, options?: WriteCheckpointOptions): Promise<string> {
  const opt = await models.optimizer.state();
  const weights = models.full?.snapshot();
  try {
    const checkpointState: HfCheckpointState = {
      step: state.step, policyVersion: state.policyVersion, curriculum: state.curriculum,
      optimizer: { iterations: opt.iterations, accBeta1: opt.accBeta1, accBeta2: opt.accBeta2 },
      rng: { seed: state.seed, derivedFrom: 'seed and step' },
      config: state.config,
      hf: {
        base: settings.model, ...(settings.adapter !== undefined ? { baseAdapter: settings.adapter } : {}), mode: settings.mode,
        ...(models.adapters ? { lora: models.adapters.config } : {}),
        modelType: models.config.architecture, vocabSize: models.config.vocabSize, numParameters: countParameters(models.config),
      },
    };
    return await writeHfCheckpoint(dir, {
      state: checkpointState,
      ...(models.adapters ? { adapters: models.adapters } : {}),
      ...(weights ? { weights } : {}),
      optimizer: await encodeWeights(opt.moments),
    }, options);
  } finally {
    tf.dispose(Object.values(opt.moments));
    if (weights) tf.dispose(Object.values(weights));
  }
}

export interface LoadedHfRun {
  readonly dir: string;
  readonly state: HfCheckpointState;
  /** Where the models continue from: the checkpoint folder holds the adapter (LoRA) or the model weights (full). */
  readonly from: { readonly adapterDir?: string; readonly weightsDir?: string };
  restoreOptimizer(models: HfRunModels): Promise<void>;
}

export async function loadHfRun(location: string): Promise<LoadedHfRun> {
  const { dir, data } = await readHfCheckpoint(location);
  return {
    dir,
    state: data.state,
    from: data.state.hf.mode === 'lora' ? { adapterDir: dir } : { weightsDir: dir },
    restoreOptimizer: async (models) => {
      await models.optimizer.restore({ ...data.state.optimizer, moments: decodeWeights(data.optimizer) });
    },
  };
}
