/**
 * SFT of a Hugging Face model (`sft --policy hf:DIR`): the demos as conversations in the model's
 * chat template (hf-sft-rows.ts), behaviour cloning of the reply tokens with LoRA adapters or
 * every weight (learner/hf/), the same epochs, validation, evaluations and checkpoints as our
 * transformer's SFT (sft-run.ts `runSft`). `--resume` continues a checkpoint exactly.
 */
import { selectBackend } from '../../policy/backend.ts';
import { CheckpointError } from '../../learner/checkpoint/format.ts';
import { openHfModels } from '../../learner/hf/hf-run-models.ts';
import { parseSaved } from '../../learner/training-config.ts';
import { loadHfRun } from '../training/hf/hf-checkpoint-io.ts';
import { hfRunModel } from '../training/hf/hf-run-model.ts';
import { RunDir } from '../training/run-dir.ts';
import { hfSftRows } from './hf-sft-rows.ts';
import { digestOf, loadDemos } from './load-demos.ts';
import type { SftSummary } from './sft-options.ts';
import { resumedSftConfig } from './sft-resume.ts';
import { runSft, type SftRunInput } from './sft-run.ts';
import { SftCheckpointConfigSchema, type SftSettings } from './sft-settings.ts';

export async function sftHfRun(input: SftRunInput): Promise<SftSummary> {
  const { options, env } = input;
  if (options.learnerThreads !== undefined && options.learnerThreads !== 1) {
    throw new Error(`a Hugging Face model trains on one learner thread (--learner-threads ${options.learnerThreads} is for our transformer)`);
  }
  const backend = await selectBackend(options.backend ?? 'auto');
  const demos = await loadDemos(options.demos, env, options.onlySuccess ?? true);
  const settings: SftSettings = { ...input.settings, demosSha256: digestOf(demos.all) };
  const resumed = options.resume !== undefined ? await loadHfRun(options.resume) : undefined;
  const config = resumed
    ? resumedSftConfig(parseSaved(SftCheckpointConfigSchema, resumed.state.config, `${resumed.dir}/state.json`), resumed.dir, env, settings)
    : input.freshConfig;
  if (config.hf === undefined) throw new CheckpointError('CKPT_INCOMPATIBLE', 'a Hugging Face SFT run needs its model (--policy hf:DIR)');
  const out = options.out ?? (resumed ? RunDir.ofCheckpoint(resumed.dir) : undefined);
  const models = await openHfModels({ settings: config.hf, lr: settings.lr, seed: config.seed, backend, critic: false, ...(resumed ? { start: resumed.start } : {}) });
  const run = hfRunModel(env, models, config, resumed?.state.policyVersion ?? 0);
  try {
    if (resumed) await resumed.restoreOptimizer(models);
    resumed?.releaseWeights();
    const contextWindow = Math.min(config.hf.contextWindow ?? Infinity, models.config.maxPositionEmbeddings);
    const rows = hfSftRows(demos, models.tokenizer, env, settings, config.seed, contextWindow);
    return await runSft(input, {
      config, settings, backend, dir: out !== undefined ? new RunDir(out) : undefined, fromEpoch: resumed?.state.step ?? 0, learnerThreads: 1,
    }, { model: models.scoring, optimizer: models.optimizer, run, parameters: models.parameters, vocabSize: models.config.vocabSize }, { rows, summary: rows.summary });
  } finally {
    run.dispose();
    models.dispose();
  }
}
