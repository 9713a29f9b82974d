/**
 * A checkpoint as an agent: `rollout --agent checkpoint:DIR` and `eval --checkpoint DIR`. Loads
 * the tokenizer and the learner's weights, and reads the model the way training did (the same
 * observation filter); sampling temperature from the run's evaluation setting unless given.
 */
import * as tf from '@tensorflow/tfjs-core';
import { selectBackend, type BackendPreference } from '../../policy/backend.ts';
import { FilteredPolicy } from '../../policy/observation-filter.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { decodeWeights } from '../../policy/transformer/weights-io.ts';
import { CheckpointError } from './format.ts';
import { readCheckpoint } from './read.ts';
import { contextOptions, parseSavedConfig, savedHiddenActions, type TrainingConfig } from '../training-config.ts';
import { modelConfig } from '../run-models.ts';
import { errorMessage } from '../../envs/error-message.ts';

export interface CheckpointAgent {
  readonly policy: FilteredPolicy;
  readonly config: TrainingConfig;
  readonly step: number;
  readonly dir: string;
  readonly backend: string;
  dispose(): void;
}

export async function loadCheckpointAgent(
  location: string,
  options: { readonly temperature?: number; readonly backend?: BackendPreference } = {},
): Promise<CheckpointAgent> {
  const backend = await selectBackend(options.backend ?? 'auto');
  const { dir, data } = await readCheckpoint(location);
  const config = parseSavedConfig(data.state.config, `${dir}/state.json`);
  const hide = savedHiddenActions(config, `${dir}/state.json`);
  const tokenizer = Tokenizer.fromJSON(data.tokenizer);
  const model = new Transformer(modelConfig(tokenizer, data.state.model));
  const tensors = decodeWeights(data.weights);
  try {
    model.setWeights(tensors);
  } catch (error) {
    model.dispose();
    throw new CheckpointError('CKPT_INCOMPATIBLE', `${dir}/weights.bin: ${errorMessage(error)}`);
  } finally {
    tf.dispose(Object.values(tensors));
  }
  const temperature = options.temperature ?? config.evalTemperature ?? 1;
  const inner = new TransformerPolicy(model, tokenizer, { temperature, name: `checkpoint@${data.state.step}`, ...contextOptions(config) });
  return {
    policy: new FilteredPolicy(inner, config.observation ?? 'full', { hide }),
    config,
    step: data.state.step,
    dir,
    backend,
    dispose: () => {
      inner.dispose();
      model.dispose();
    },
  };
}
