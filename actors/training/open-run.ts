/**
 * Step 1 of a training run (TensorFlow.js from here on): the backend, the checkpoint to resume or
 * start from, the run's configuration, its directory, and the models.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import { selectBackend } from '../../policy/backend.ts';
import type { CheckpointData } from '../../learner/checkpoint/format.ts';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import { freshModels, initModels, loadModels, type RunModels } from '../../learner/run-models.ts';
import { parseSavedConfig, resumeConfig, type TrainingConfig } from '../../learner/training-config.ts';
import { initConfig } from './init-config.ts';
import { RunDir } from './run-dir.ts';
import { symmetriesOf } from './symmetries.ts';
import { buildTokenizer } from './tokenizer-corpus.ts';
import type { RunConfigOptions, TrainingOptions } from './training-options.ts';

export interface OpenRunInput {
  readonly options: TrainingOptions;
  readonly env: EnvDefinition;
  readonly configOptions: RunConfigOptions;
  /** A fresh run's configuration, checked when the system was created; undefined on resume. */
  readonly freshConfig: TrainingConfig | undefined;
}

export interface OpenedRun {
  readonly backend: string;
  readonly config: TrainingConfig;
  readonly runDir: RunDir | undefined;
  readonly models: RunModels;
  /** The checkpoint a resumed run continues from. */
  readonly resumed: CheckpointData | undefined;
}

export async function openTrainingRun({ options, env, configOptions, freshConfig }: OpenRunInput): Promise<OpenedRun> {
  const backend = await selectBackend(options.backend ?? 'auto');
  const resumed = options.resume !== undefined ? await readCheckpoint(options.resume) : undefined;
  const init = options.init !== undefined ? await readCheckpoint(options.init) : undefined;
  const config = resumed
    ? resumeConfig(parseSavedConfig(resumed.data.state.config, `${resumed.dir}/state.json`), env.spec.id, configOptions)
    : init
      ? initConfig(init.data.state.config, env.spec.id, configOptions, init.dir)
      : (freshConfig as TrainingConfig);
  if (config.relabel === true) symmetriesOf(env);
  // A resumed run continues in its run directory, also when a crash left only checkpoint.old.
  const out = options.out ?? (resumed ? RunDir.ofCheckpoint(resumed.dir) : undefined);
  const runDir = out !== undefined ? new RunDir(out) : undefined;
  const models = resumed
    ? await loadModels(resumed.data, config, resumed.dir)
    : init
      ? initModels(init.data, config, init.dir)
      : freshModels(await buildTokenizer(env, { seed: config.seed, tasks: config.corpusTasks, maxVocab: config.maxVocab }), config);
  return { backend, config, runDir, models, resumed: resumed?.data };
}
