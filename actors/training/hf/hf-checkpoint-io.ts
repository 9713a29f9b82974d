/**
 * A Hugging Face run's checkpoint through learner/checkpoint/hf-checkpoint.ts: the adapters (or
 * full weights), Adam's state and the run's state on save; on load, the folders the models
 * continue from and the optimizer state to restore.
 */
import * as tf from '@tensorflow/tfjs-core';
import { disposeHfCheckpoint, namedWeights, readHfCheckpoint, writeHfCheckpoint, type HfCheckpointData, type HfCheckpointState } from '../../../learner/checkpoint/hf-checkpoint.ts';
import type { WriteCheckpointOptions } from '../../../learner/checkpoint/write.ts';
import type { HfRunModels, SavedValueHead } from '../../../learner/hf/hf-run-models.ts';
import type { HfRunSettings } from '../../../learner/hf-settings.ts';
import { countParameters } from '../../../policy/hf/memory-estimate.ts';
import { decodeWeights, encodeWeights } from '../../../policy/transformer/weights-io.ts';
import type { RunState } from '../run-model.ts';

export async function saveHfRun(dir: string, models: HfRunModels, state: RunState, settings: HfRunSettings, options?: WriteCheckpointOptions): Promise<string> {
  const opt = await models.optimizer.state();
  // The trained variables themselves, in the forward pass's layout (written as they are read, not copied).
  const weights = models.full ? namedWeights(models.config, models.full.model.weights) : undefined;
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
      // PPO's value head rides in optimizer.bin beside Adam's moments, under value/ (read back by loadHfRun).
      optimizer: await encodeWeights({ ...opt.moments, ...(models.valueHead ? { 'value/w': models.valueHead.w, 'value/b': models.valueHead.b } : {}) }),
    }, options);
  } finally {
    tf.dispose(Object.values(opt.moments));
  }
}

export interface LoadedHfRun {
  readonly dir: string;
  readonly state: HfCheckpointState;
  /** What the models continue from: the trained adapters (LoRA) or weights (full). */
  readonly start: Pick<HfCheckpointData, 'adapters' | 'weights'> & { readonly valueHead?: SavedValueHead };
  restoreOptimizer(models: HfRunModels): Promise<void>;
  /** Frees the loaded weights once they are copied into the models (adapters are taken over, not freed). */
  releaseWeights(): void;
}

export async function loadHfRun(location: string): Promise<LoadedHfRun> {
  const { dir, data } = await readHfCheckpoint(location);
  const { 'value/w': w, 'value/b': b, ...moments } = decodeWeights(data.optimizer);
  const valueHead = w !== undefined && b !== undefined ? { w, b } : undefined;
  let restored = false;
  return {
    dir,
    state: data.state,
    start: { ...(data.adapters ? { adapters: data.adapters } : {}), ...(data.weights ? { weights: data.weights } : {}), ...(valueHead ? { valueHead } : {}) },
    restoreOptimizer: async (models) => {
      restored = true; // restore takes the moments over (they become Adam's slots)
      await models.optimizer.restore({ ...data.state.optimizer, moments });
    },
    releaseWeights: () => {
      if (data.weights) disposeHfCheckpoint({ state: data.state, weights: data.weights, optimizer: data.optimizer });
      tf.dispose([w, b].filter((t) => t !== undefined));
      if (!restored) tf.dispose(Object.values(moments));
    },
  };
}
