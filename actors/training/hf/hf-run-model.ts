/**
 * A Hugging Face causal LM as a run's model (run-model.ts): the agent is an `HfPolicy`
 * (policy/hf/agent/) over the trained model — it reads the env's prompt through the model's
 * own chat template and keeps every episode token for token — behind a recorder; a learner step
 * is learner/train-step.ts on the model's scores (learner/hf/hf-scoring.ts), free-form
 * (constrainedLoss off: an LLM's reply is not constrained to listed actions), with the base model
 * (adapters off, or the initial weights) as the KL reference.
 */
import type * as tf from '@tensorflow/tfjs-core';
import { promptOf, type EnvDefinition } from '../../../envs/contract.ts';
import { HfPolicy } from '../../../policy/hf/agent/index.ts';
import type { HfRunModels } from '../../../learner/hf/hf-run-models.ts';
import { trainStep } from '../../../learner/train-step.ts';
import type { TrainingConfig } from '../../../learner/training-config.ts';
import { RecordingPolicyAgent } from '../recording-agent.ts';
import type { RunModel } from '../run-model.ts';
import { evaluateHf } from './hf-evaluate.ts';
import { saveHfRun } from './hf-checkpoint-io.ts';
import { assignNamedWeights, toNamedWeights } from '../named-weights.ts';

/** The name runs and summaries give the model: `hf:<folder>`. */
export const hfModelName = (dir: string): string => `hf:${dir.split(/[\\/]/).filter(Boolean).pop() ?? dir}`;

export function hfAgent(env: EnvDefinition, models: HfRunModels, config: TrainingConfig, temperature: number, version: number): HfPolicy {
  const hf = config.hf!;
  return new HfPolicy({
    model: models.model, tokenizer: models.tokenizer, prompt: promptOf(env), name: hfModelName(hf.model),
    temperature, topP: hf.topP, maxNewTokens: hf.maxNewTokens, version,
    ...(hf.contextWindow !== undefined ? { contextWindow: hf.contextWindow } : {}),
  });
}

export function hfRunModel(env: EnvDefinition, models: HfRunModels, config: TrainingConfig, policyVersion: number): RunModel {
  const agent = hfAgent(env, models, config, config.temperature, policyVersion);
  const policy = new RecordingPolicyAgent(agent);
  const args = { ...config, constrainedLoss: false };
  return {
    parameters: models.parameters,
    trainable: models.trainable,
    vocabSize: models.config.vocabSize,
    policy,
    train: (episodes, step, staleness) => trainStep({
      model: models.scoring, reference: models.reference, optimizer: models.optimizer, args,
      episodes, seed: config.seed, step, dropUninformative: config.dropUninformative,
      ...(staleness ? { staleness } : {}),
    }),
    // LoRA adapters and full weights are variables Adam updates in place: the agent already
    // decodes with the new weights; only the version it reports moves.
    publish: (version) => ({ version, apply: () => agent.setModel(models.model, version) }),
    exportWeights: (version) => toNamedWeights(version, policyVariables(models)),
    loadWeights: (weights) => {
      assignNamedWeights(new Map(policyVariables(models)), weights);
      agent.setModel(models.model, weights.version);
    },
    save: (dir, state, options) => saveHfRun(dir, models, state, config.hf!, options),
    evaluate: (request) => evaluateHf({ ...request, agent: hfAgent(request.env, models, config, request.temperature, agent.version) }),
    dispose: () => agent.dispose(),
  };
}

/**
 * The variables the agent decodes with that the learner trains, by stable name (the optimizer's:
 * `<module path>.lora_A/B` for LoRA, transformers' tensor names in full fine-tuning); the value
 * head is the learner's alone.
 */
function policyVariables(models: HfRunModels): (readonly [string, tf.Variable])[] {
  return models.optimizer.params.filter(([name]) => !name.startsWith('value_head.'));
}
