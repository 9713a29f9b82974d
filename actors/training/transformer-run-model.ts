/**
 * Our transformer as a run's model (run-model.ts): the agent behind the run's observation filter
 * (training-policy.ts), a learner step (learner/train-step.ts, on two threads when asked), its
 * checkpoint (learner/run-models.ts toCheckpoint) and its evaluation (evaluate.ts).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { CheckpointData } from '../../learner/checkpoint/format.ts';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import type { DataParallelGrads } from '../../learner/data-parallel.ts';
import { toCheckpoint, type RunModels } from '../../learner/run-models.ts';
import { trainStep } from '../../learner/train-step.ts';
import { contextOptions, type TrainingConfig } from '../../learner/training-config.ts';
import { evaluate } from './evaluate.ts';
import { namedTensors, toNamedWeights } from './named-weights.ts';
import type { RunModel } from './run-model.ts';
import { trainingPolicy } from './training-policy.ts';

export function transformerRunModel(
  env: EnvDefinition,
  models: RunModels,
  config: TrainingConfig,
  resumed: CheckpointData | undefined,
  parallel: DataParallelGrads | undefined,
): RunModel {
  const { agent, policy } = trainingPolicy(env, models, config, resumed);
  return {
    parameters: models.model.parameterCount,
    trainable: models.model.parameterCount,
    vocabSize: models.tokenizer.vocabSize,
    policy,
    train: (episodes, step, staleness) => trainStep({
      model: models.model, reference: models.reference, optimizer: models.optimizer, args: config,
      episodes, seed: config.seed, step, dropUninformative: config.dropUninformative,
      ...(staleness ? { staleness } : {}),
      decoding: agent.actionDecoding,
      ...(parallel ? { parallel } : {}),
    }),
    publish: (version) => {
      // A snapshot shares the weights' data (tfjs tensors are immutable; Adam re-points the
      // learner's variables), so the learner may train on while the snapshot waits to be applied.
      const snapshot = Object.fromEntries(Object.entries(models.model.getWeights()).map(([name, t]) => [name, tf.clone(t)]));
      const discard = (): void => Object.values(snapshot).forEach((t) => t.dispose());
      return { version, apply: () => { agent.setWeights(version, snapshot); discard(); }, discard };
    },
    // The learner's weights, as `publish` snapshots them: the agent's model may still hold an
    // older version until the local producer applies the staged one (called right after publish).
    exportWeights: (version) => toNamedWeights(version, Object.entries(models.model.getWeights())),
    loadWeights: (weights) => {
      const tensors = namedTensors(weights);
      try {
        agent.setWeights(weights.version, tensors);
      } finally {
        tf.dispose(Object.values(tensors));
      }
    },
    save: async (dir, state, options) => {
      const { seed: _seed, ...saved } = state;
      const data = await toCheckpoint(models, { ...saved, rng: { seed: state.seed, derivedFrom: 'seed and step' } });
      return writeCheckpoint(dir, data, options);
    },
    evaluate: (request) => evaluate({
      ...request, model: models.model, tokenizer: models.tokenizer, observation: config.observation,
      hiddenActions: config.hiddenActions, context: contextOptions(config),
    }),
    dispose: () => {
      policy.clearRecords();
      agent.dispose();
    },
  };
}
