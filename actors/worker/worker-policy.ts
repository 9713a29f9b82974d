/**
 * The policy a worker samples with, built from the learner's welcome the way the learner built
 * its own (so the same weights give the same episodes): our transformer from the run's tokenizer
 * and model config, or a Hugging Face model from the base folder on this machine (the learner's
 * `--policy hf:DIR`; the adapters or full weights come in the weights frames). Its assignments
 * run through a `LocalProducer` (actors/buffer/local-producer.ts), as one process's steps do.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import { freshModels } from '../../learner/run-models.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import { selectBackend, type BackendPreference } from '../../policy/backend.ts';
import { Tokenizer, type TokenizerJSON } from '../../policy/tokenizer.ts';
import type { WelcomeFrame } from '../../transport/learner-wire/learner-schemas.ts';
import { LocalProducer, type CollectSettings } from '../buffer/local-producer.ts';
import type { RunModel } from '../training/run-model.ts';
import { transformerRunModel } from '../training/transformer-run-model.ts';
import { configOfRun } from './run-spec.ts';
import type { OpenWorkerPolicy } from './worker-session.ts';

export interface WorkerPolicyOptions {
  /** The env the worker rolls out (in process, or on env servers: `resolveEnvDefinition`). */
  readonly env: EnvDefinition;
  /** A Hugging Face run's base model folder on this machine. Default: the learner's path. */
  readonly hfModel?: string;
  readonly backend?: BackendPreference;
  /** Retries, deadlines and events of the collections (seed, tasks per step, G and concurrency come from the run). */
  readonly collect?: Omit<CollectSettings, 'seed' | 'tasksPerStep' | 'groupSize' | 'concurrency'>;
  /** Slots at once; default the run's concurrency. */
  readonly concurrency?: number;
}

/** An `OpenWorkerPolicy` for `runWorker`. */
export function openWorkerPolicy(options: WorkerPolicyOptions): OpenWorkerPolicy {
  return async (welcome) => {
    const config = configOfRun(welcome.run);
    if (config.env !== options.env.spec.id) throw new Error(`the learner's run is on "${config.env}", this worker's env is "${options.env.spec.id}"`);
    const backend = await selectBackend(options.backend ?? 'auto');
    const { model, free } = config.hf !== undefined ? await hfModel(options, config, welcome, backend) : transformerModel(options.env, config, welcome);
    const producer = new LocalProducer({
      env: options.env, policy: model.policy, name: welcome.worker,
      collect: {
        ...options.collect, seed: config.seed, tasksPerStep: config.tasksPerStep, groupSize: config.groupSize,
        concurrency: options.concurrency ?? config.concurrency,
      },
    });
    return { producer, load: (weights) => model.loadWeights(weights), dispose: free };
  };
}

/** The run model, and what frees it with its tensors (a RunModel's `dispose` leaves the models to their opener). */
interface OpenedModel {
  readonly model: RunModel;
  readonly free: () => void;
}

function transformerModel(env: EnvDefinition, config: TrainingConfig, welcome: WelcomeFrame): OpenedModel {
  if (welcome.run.tokenizer === undefined) throw new Error("the learner's welcome has no tokenizer (run.tokenizer) for its transformer");
  let tokenizer: Tokenizer;
  try {
    tokenizer = Tokenizer.fromJSON(welcome.run.tokenizer as TokenizerJSON);
  } catch (error) {
    throw new Error(`the learner's welcome has an unreadable tokenizer (run.tokenizer): ${(error as Error).message}`);
  }
  const models = freshModels(tokenizer, config);
  const model = transformerRunModel(env, models, config, undefined, undefined);
  return { model, free: () => { model.dispose(); models.dispose(); } };
}

async function hfModel(options: WorkerPolicyOptions, config: TrainingConfig, welcome: WelcomeFrame, backend: string): Promise<OpenedModel> {
  const { openHfModels } = await import('../../learner/hf/hf-run-models.ts');
  const { hfRunModel } = await import('../training/hf/hf-run-model.ts');
  const hf = config.hf!;
  // The adapter a learner started from is not needed: the weights frame brings the current one.
  const { adapter: _adapter, ...settings } = hf;
  const models = await openHfModels({
    settings: { ...settings, model: options.hfModel ?? hf.model }, lr: config.lr, seed: config.seed, backend, critic: false,
  });
  // A worker's weights change only between assignments (loadWeights), so its agent needs no copy of its own, even when the run is asynchronous.
  const { async: _async, ...synchronous } = config;
  const model = hfRunModel(options.env, models, { ...synchronous, hf: { ...settings, model: options.hfModel ?? hf.model } }, welcome.version);
  return { model, free: () => { model.dispose(); models.dispose(); } };
}
