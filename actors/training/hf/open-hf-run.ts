/**
 * Step 1 of a Hugging Face model's training run: the backend, the checkpoint to resume or start
 * from, the run's configuration, its directory, and the models (learner/hf/hf-run-models.ts).
 *
 * `--resume` continues exactly: the checkpoint's config, adapters (or weights) and Adam's state.
 * `--init RUN` starts a new run from an earlier one's adapters or weights (typically `sft`): the
 * model settings come from it; the KL reference is the base model with adapters off (LoRA) or
 * the weights the run starts from (full fine-tuning).
 */
import path from 'node:path';
import type { EnvDefinition } from '../../../envs/contract.ts';
import { selectBackend } from '../../../policy/backend.ts';
import { CheckpointError } from '../../../learner/checkpoint/format.ts';
import { openHfModels, type HfRunModels } from '../../../learner/hf/hf-run-models.ts';
import { resolveHfSettings } from '../../../learner/hf-settings.ts';
import { parseSavedConfig, resumeConfig, resolveConfig, type TrainingConfig, type TrainingOptionsConfig } from '../../../learner/training-config.ts';
import type { BackendPreference } from '../../../policy/backend-preference.ts';
import { RunDir } from '../run-dir.ts';
import { loadHfRun, type LoadedHfRun } from './hf-checkpoint-io.ts';
import { hfAgentOwnsWeights } from './hf-run-model.ts';

export interface OpenHfRunInput {
  readonly env: EnvDefinition;
  readonly backend: BackendPreference | undefined;
  readonly resume: string | undefined;
  readonly init: string | undefined;
  readonly out: string | undefined;
  /** The caller's options (resumeConfig/initConfig compare them with a checkpoint's). */
  readonly configOptions: TrainingOptionsConfig & { readonly steps: number };
  readonly freshConfig: TrainingConfig | undefined;
}

export interface OpenedHfRun {
  readonly backend: string;
  readonly config: TrainingConfig;
  readonly runDir: RunDir | undefined;
  readonly models: HfRunModels;
  readonly resumed: LoadedHfRun | undefined;
}

const SAMPLING_KEYS = ['maxNewTokens', 'topP', 'contextWindow', 'positionChunk', 'recompute'] as const;

/** A new run's config from an earlier HF run (`--init`): its model settings, this run's options. */
function initHfConfig(from: LoadedHfRun, env: string, options: OpenHfRunInput['configOptions']): TrainingConfig {
  const saved = parseSavedConfig(from.state.config, `${from.dir}/state.json`);
  if (saved.hf === undefined) throw new CheckpointError('CKPT_INCOMPATIBLE', `${from.dir} is not a Hugging Face run`);
  if (saved.env !== env) throw new CheckpointError('CKPT_INCOMPATIBLE', `${from.dir} was trained on env "${saved.env}", not "${env}"`);
  const given = options.hf;
  if (given !== undefined && (given.model !== undefined && resolveModel(given.model) !== saved.hf.model)) {
    throw new CheckpointError('CKPT_INCOMPATIBLE', `--init ${from.dir} trained ${saved.hf.model}, not ${given.model}`);
  }
  // The model, mode and adapters are the checkpoint's; how the agent samples and the learner chunks may change.
  const { adapter: _adapter, ...hf } = saved.hf;
  const fixed = (['mode', 'lora'] as const).filter((k) => given?.[k] !== undefined && JSON.stringify(resolveHfSettings({ ...hf, [k]: given[k] })[k]) !== JSON.stringify(hf[k]));
  if (fixed.length > 0 || given?.adapter !== undefined) {
    throw new CheckpointError('CKPT_INCOMPATIBLE', `--init keeps the checkpoint's model settings (${given?.adapter !== undefined ? '--adapter' : fixed.map((k) => `hf.${k}`).join(', ')} differ): its adapters or weights are what the run starts from`);
  }
  const sampling = given === undefined ? {} : Object.fromEntries(SAMPLING_KEYS.filter((k) => given[k] !== undefined).map((k) => [k, given[k]]));
  return { ...resolveConfig(env, { ...options, hf: { ...hf, ...sampling } }), initFrom: from.dir };
}

/** The checkpoint's config; `--policy hf:DIR` and its options may restate it, not change it. */
function resumeHfConfig(from: LoadedHfRun, env: string, options: OpenHfRunInput['configOptions']): TrainingConfig {
  const saved = parseSavedConfig(from.state.config, `${from.dir}/state.json`);
  const { hf: given, ...rest } = options;
  if (given !== undefined && saved.hf !== undefined) {
    const restated = resolveHfSettings({ ...saved.hf, ...given });
    const changed = (Object.keys(restated) as (keyof typeof restated)[]).filter((k) => JSON.stringify(restated[k]) !== JSON.stringify(saved.hf![k]));
    if (changed.length > 0) {
      throw new CheckpointError('CKPT_INCOMPATIBLE', `a resumed run keeps the checkpoint's model settings; these differ: ${changed.map((k) => `hf.${k} ${JSON.stringify(restated[k])} (checkpoint: ${JSON.stringify(saved.hf![k])})`).join('; ')}`);
    }
  }
  return resumeConfig(saved, env, rest);
}

const resolveModel = (dir: string): string => path.resolve(dir);

export async function openHfRun(input: OpenHfRunInput): Promise<OpenedHfRun> {
  const backend = await selectBackend(input.backend ?? 'auto');
  const resumed = input.resume !== undefined ? await loadHfRun(input.resume) : undefined;
  const init = input.init !== undefined ? await loadHfRun(input.init) : undefined;
  const config = resumed
    ? resumeHfConfig(resumed, input.env.spec.id, input.configOptions)
    : init
      ? initHfConfig(init, input.env.spec.id, input.configOptions)
      : (input.freshConfig as TrainingConfig);
  if (config.hf === undefined) throw new Error('a Hugging Face run needs its model (--policy hf:DIR)');
  const out = input.out ?? (resumed ? RunDir.ofCheckpoint(resumed.dir) : undefined);
  const start = resumed ?? init;
  const models = await openHfModels({ settings: config.hf, lr: config.lr, seed: config.seed, backend, critic: config.algo === 'ppo', agentCopy: hfAgentOwnsWeights(config), ...(start ? { start: start.start } : {}) });
  try {
    if (resumed) await resumed.restoreOptimizer(models);
  } catch (error) {
    models.dispose();
    throw error;
  } finally {
    start?.releaseWeights();
  }
  return { backend, config, runDir: out !== undefined ? new RunDir(out) : undefined, models, resumed };
}
