/**
 * Our transformer as a run's model (run-model.ts): the agent behind the run's observation filter
 * (training-policy.ts), a learner step (learner/train-step.ts, on two threads when asked), its
 * checkpoint (learner/run-models.ts toCheckpoint) and its evaluation (evaluate.ts).
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import type { CheckpointData } from '../../learner/checkpoint/format.ts';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import type { DataParallelGrads } from '../../learner/data-parallel.ts';
import { toCheckpoint, type RunModels } from '../../learner/run-models.ts';
import { trainStep } from '../../learner/train-step.ts';
import { contextOptions, type TrainingConfig } from '../../learner/training-config.ts';
import * as tf from '@tensorflow/tfjs-core';
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
    train: (episodes, step) => trainStep({
      model: models.model, reference: models.reference, optimizer: models.optimizer, args: config,
      episodes, seed: config.seed, step, dropUninformative: config.dropUninformative,
      decoding: agent.actionDecoding,
      ...(parallel ? { parallel } : {}),
    }),
    publish: (version) => agent.setWeights(version, models.model.getWeights()),
    // The agent's model holds the published version (the learner's model may be mid-update).
    exportWeights: (version) => toNamedWeights(version, Object.entries(models.agentModel.getWeights())),
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
