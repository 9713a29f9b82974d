/**
 * The tensors of a training run: the learner's model, the frozen reference policy (a copy of the
 * initial weights, for the KL term), the agent's model (what the rollouts decode with; it gets
 * each new version by `setWeights`), and Adam. Built fresh from a tokenizer, or loaded from a
 * checkpoint; and turned back into a checkpoint.
 *
 * Copies are cheap: tfjs tensors are immutable and `Variable.assign` re-points a variable at new
 * data, so the reference and agent "copies" share memory with the learner until its next update.
 */
import * as tf from '@tensorflow/tfjs-core';
import { deriveSeed } from '../machines/seed.ts';
import { Tokenizer } from '../policy/tokenizer.ts';
import { makeConfig, withCopyForms, type TransformerConfig } from '../policy/transformer/config.ts';
import { paramShapes } from '../policy/transformer/params.ts';
import { Transformer } from '../policy/transformer/transformer.ts';
import { decodeWeights, encodeWeights } from '../policy/transformer/weights-io.ts';
import { CheckpointError, type CheckpointData, type CheckpointState } from './checkpoint/format.ts';
import { LearnerOptimizer } from './optimizer.ts';
import type { TrainingConfig } from './training-config.ts';
import { errorMessage } from '../envs/error-message.ts';

export interface RunModels {
  readonly tokenizer: Tokenizer;
  readonly config: TransformerConfig;
  readonly model: Transformer;
  readonly reference: Transformer;
  readonly agentModel: Transformer;
  readonly optimizer: LearnerOptimizer;
  dispose(): void;
}

/** The learner trains every parameter, except the value head when there is no critic. */
function optimizer(model: Transformer, run: TrainingConfig): LearnerOptimizer {
  const names = paramShapes(model.config).map(([name]) => name).filter((name) => run.algo === 'ppo' || !name.startsWith('value.'));
  return new LearnerOptimizer(run.lr, names.map((name) => [name, model.params[name]!] as const));
}

function assemble(tokenizer: Tokenizer, model: Transformer, reference: Transformer, run: TrainingConfig): RunModels {
  const agentModel = new Transformer(model.config);
  agentModel.setWeights(model.getWeights());
  const opt = optimizer(model, run);
  return {
    tokenizer,
    config: model.config,
    model,
    reference,
    agentModel,
    optimizer: opt,
    dispose: () => {
      opt.dispose();
      model.dispose();
      reference.dispose();
      agentModel.dispose();
    },
  };
}

/**
 * The initialisation seed, derived from the run seed and never 0: params.ts seeds parameter i
 * with `seed·1000003 + i`, and tf.randomNormal treats a seed of 0 as "unseeded" (Math.random), so
 * model seed 0 would draw the token embedding differently in every process.
 */
export const modelSeed = (runSeed: number): number => deriveSeed(runSeed, 0x30de1) || 1;

/** A model config over `tokenizer`'s vocabulary: its size, and its word forms when the copy uses them. */
export function modelConfig(tokenizer: Tokenizer, overrides: Partial<TransformerConfig>): TransformerConfig {
  return makeConfig(tokenizer.vocabSize, withCopyForms(overrides, tokenizer.toJSON().vocab));
}

export function freshModels(tokenizer: Tokenizer, run: TrainingConfig): RunModels {
  const config = modelConfig(tokenizer, run.model);
  const model = new Transformer(config, { seed: modelSeed(run.seed) });
  const reference = new Transformer(config);
  reference.setWeights(model.getWeights());
  return assemble(tokenizer, model, reference, run);
}

/** Loads weights into a model, turning a mismatch into a checkpoint error naming the file. */
function load(model: Transformer, bytes: Uint8Array, file: string): void {
  const tensors = decodeWeights(bytes);
  try {
    model.setWeights(tensors);
  } catch (error) {
    throw new CheckpointError('CKPT_INCOMPATIBLE', `${file}: ${errorMessage(error)}`);
  } finally {
    tf.dispose(Object.values(tensors));
  }
}

export async function loadModels(data: CheckpointData, run: TrainingConfig, dir: string): Promise<RunModels> {
  const tokenizer = Tokenizer.fromJSON(data.tokenizer);
  const config = modelConfig(tokenizer, data.state.model);
  const model = new Transformer(config);
  const reference = new Transformer(config);
  load(model, data.weights, `${dir}/weights.bin`);
  load(reference, data.reference, `${dir}/reference.bin`);
  const models = assemble(tokenizer, model, reference, run);
  await models.optimizer.restore({ ...data.state.optimizer, moments: decodeWeights(data.optimizer) });
  return models;
}

/**
 * A fresh run that starts from a checkpoint's weights (`train --init`, e.g. after SFT): its
 * tokenizer and learner weights, which are also the frozen KL reference; a new optimizer.
 */
export function initModels(data: CheckpointData, run: TrainingConfig, dir: string): RunModels {
  const tokenizer = Tokenizer.fromJSON(data.tokenizer);
  const config = modelConfig(tokenizer, data.state.model);
  const model = new Transformer(config);
  const reference = new Transformer(config);
  load(model, data.weights, `${dir}/weights.bin`);
  load(reference, data.weights, `${dir}/weights.bin`);
  return assemble(tokenizer, model, reference, run);
}

function withoutForms(config: TransformerConfig): TransformerConfig {
  const { copyForms: _derived, ...saved } = config;
  return saved;
}

export async function toCheckpoint(
  models: RunModels,
  state: Omit<CheckpointState, 'optimizer' | 'model'>,
): Promise<CheckpointData> {
  const opt = await models.optimizer.state();
  try {
    return {
      // The word forms are derived from the tokenizer (modelConfig), so they are not saved.
      state: { ...state, model: withoutForms(models.config), optimizer: { iterations: opt.iterations, accBeta1: opt.accBeta1, accBeta2: opt.accBeta2 } },
      tokenizer: models.tokenizer.toJSON(),
      weights: await encodeWeights(models.model.getWeights()),
      reference: await encodeWeights(models.reference.getWeights()),
      optimizer: await encodeWeights(opt.moments),
    };
  } finally {
    tf.dispose(Object.values(opt.moments));
  }
}
