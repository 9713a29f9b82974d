/**
 * Step 1 of an SFT run (TensorFlow.js from here on): the backend, the demos, the checkpoint to
 * resume from, the configuration, the run directory and the models.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import { selectBackend } from '../../policy/backend.ts';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import { freshModels, loadModels, type RunModels } from '../../learner/run-models.ts';
import { parseSaved, type TrainingConfig } from '../../learner/training-config.ts';
import { RunDir } from '../training/run-dir.ts';
import { buildTokenizer } from '../training/tokenizer-corpus.ts';
import { digestOf, loadDemos, type LoadedDemos } from './load-demos.ts';
import type { SftOptions, SftSettingsWithoutDigest } from './sft-options.ts';
import { resumedSftConfig } from './sft-resume.ts';
import { SftCheckpointConfigSchema, type SftSettings } from './sft-settings.ts';

export interface OpenSftRunInput {
  readonly options: SftOptions;
  readonly env: EnvDefinition;
  readonly settings: SftSettingsWithoutDigest;
  readonly freshConfig: TrainingConfig;
}

export interface OpenedSftRun {
  readonly backend: string;
  readonly demos: LoadedDemos;
  readonly settings: SftSettings;
  readonly config: TrainingConfig;
  readonly dir: RunDir | undefined;
  readonly models: RunModels;
  /** The epoch a resumed run continues after (0 for a fresh run). */
  readonly fromEpoch: number;
}

export async function openSftRun({ options, env, settings: withoutDigest, freshConfig }: OpenSftRunInput): Promise<OpenedSftRun> {
  const backend = await selectBackend(options.backend ?? 'auto');
  const demos = await loadDemos(options.demos, env, options.onlySuccess ?? true);
  const settings: SftSettings = { ...withoutDigest, demosSha256: digestOf(demos.all) };
  const resumed = options.resume !== undefined ? await readCheckpoint(options.resume) : undefined;
  const config = resumed
    ? resumedSftConfig(parseSaved(SftCheckpointConfigSchema, resumed.data.state.config, `${resumed.dir}/state.json`), resumed.dir, env, settings)
    : freshConfig;
  const runDir = options.out ?? (resumed ? RunDir.ofCheckpoint(resumed.dir) : undefined);
  const dir = runDir !== undefined ? new RunDir(runDir) : undefined;
  const models = resumed
    ? await loadModels(resumed.data, config, resumed.dir)
    : freshModels(await buildTokenizer(env, { seed: config.seed, tasks: config.corpusTasks, maxVocab: config.maxVocab }), config);
  return { backend, demos, settings, config, dir, models, fromEpoch: resumed?.data.state.step ?? 0 };
}
