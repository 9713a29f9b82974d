/**
 * A Hugging Face causal LM as a run's model (run-model.ts): the agent is an `HfPolicy`
 * (policy/hf/agent/) over the trained model — it reads the env's prompt through the model's
 * own chat template and keeps every episode token for token — behind a recorder; a learner step
 * is learner/train-step.ts on the model's scores (learner/hf/hf-scoring.ts), free-form
 * (constrainedLoss off: an LLM's reply is not constrained to listed actions), with the base model
 * (adapters off, or the initial weights) as the KL reference.
 *
 * Synchronous training: the agent decodes with the learner's own variables (no copy); a publish
 * only moves the version it reports. Asynchronous training (maxStaleness > 0): a collection runs
 * ahead while the learner trains, so the agent decodes with its own snapshot of the trained
 * weights (learner/hf/hf-agent-weights.ts); a publish snapshots the learner's, and the producer
 * applies it between steps.
 */
import type * as tf from '@tensorflow/tfjs-core';
import { promptOf, type EnvDefinition } from '../../../envs/contract.ts';
import { HfPolicy } from '../../../policy/hf/agent/index.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { snapshotHfWeights, trainedVariables, type HfWeightsSnapshot } from '../../../learner/hf/hf-agent-weights.ts';
import type { HfRunModels } from '../../../learner/hf/hf-run-models.ts';
import { trainStep } from '../../../learner/train-step.ts';
import type { TrainingConfig } from '../../../learner/training-config.ts';
import { RecordingPolicyAgent } from '../recording-agent.ts';
import type { StagedWeights } from '../../buffer/local-producer.ts';
import type { RunModel } from '../run-model.ts';
import { evaluateHf } from './hf-evaluate.ts';
import { saveHfRun } from './hf-checkpoint-io.ts';
import { assignNamedWeights, toNamedWeights } from '../named-weights.ts';

/** The name runs and summaries give the model: `hf:<folder>`. */
export const hfModelName = (dir: string): string => `hf:${dir.split(/[\\/]/).filter(Boolean).pop() ?? dir}`;

export function hfAgent(env: EnvDefinition, models: HfRunModels, config: TrainingConfig, temperature: number, version: number, model: HfCausalLm = models.model): HfPolicy {
  const hf = config.hf!;
  return new HfPolicy({
    model, tokenizer: models.tokenizer, prompt: promptOf(env), name: hfModelName(hf.model),
    temperature, topP: hf.topP, maxNewTokens: hf.maxNewTokens, version,
    ...(hf.contextWindow !== undefined ? { contextWindow: hf.contextWindow } : {}),
  });
}

/** Whether the agent needs weights of its own: only when a collection may run ahead of the learner. */
export const hfAgentOwnsWeights = (config: Pick<TrainingConfig, 'async'>): boolean => (config.async?.maxStaleness ?? 0) > 0;

/**
 * The agent's weights and how a publish reaches them. Shared (synchronous): LoRA adapters and
 * full weights are variables Adam updates in place, so the agent already decodes with the new
 * weights; only the version it reports moves. Own (asynchronous): a snapshot per publish, swapped
 * in when applied (the agent's previous one freed), freed unapplied when a later one replaces it.
 */
function agentWeights(models: HfRunModels, config: TrainingConfig): { model: HfCausalLm; publish(agent: HfPolicy, version: number): StagedWeights; dispose(): void } {
  if (!hfAgentOwnsWeights(config)) {
    return { model: models.model, publish: (agent, version) => ({ version, apply: () => agent.setModel(models.model, version) }), dispose: () => {} };
  }
  const trained = trainedVariables(models);
  let current: HfWeightsSnapshot | undefined = snapshotHfWeights(models.model, trained);
  return {
    model: current.model,
    publish: (agent, version) => {
      const next = snapshotHfWeights(models.model, trained);
      let applied = false;
      return {
        version,
        apply: () => {
          agent.setModel(next.model, version);
          applied = true;
          current?.dispose();
          current = next;
        },
        discard: () => { if (!applied) next.dispose(); },
      };
    },
    dispose: () => {
      current?.dispose();
      current = undefined;
    },
  };
}

export function hfRunModel(env: EnvDefinition, models: HfRunModels, config: TrainingConfig, policyVersion: number): RunModel {
  const weights = agentWeights(models, config);
  const agent = hfAgent(env, models, config, config.temperature, policyVersion, weights.model);
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
    publish: (version) => weights.publish(agent, version),
    exportWeights: (version) => toNamedWeights(version, policyVariables(models)),
    loadWeights: (named) => {
      assignNamedWeights(new Map(policyVariables(models)), named);
      // The agent decodes with them from now on: the learner's variables (shared), or a snapshot
      // of them when it has weights of its own.
      weights.publish(agent, named.version).apply();
    },
    save: (dir, state, options) => saveHfRun(dir, models, state, config.hf!, options),
    evaluate: (request) => evaluateHf({ ...request, agent: hfAgent(request.env, models, config, request.temperature, agent.version) }),
    dispose: () => {
      agent.dispose();
      weights.dispose();
    },
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
