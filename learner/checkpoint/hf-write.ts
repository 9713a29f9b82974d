/**
 * Writing a Hugging Face run's checkpoint (hf-format.ts) with the transformer's crash-safe writer
 * (write.ts: temp folder, every file fsynced, manifest last, renames), so it goes through the same
 * stages and a crash anywhere leaves a complete checkpoint for the reader. The state is checked
 * against its schema before anything is written, and the data against the state's mode.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeIssue } from '../../machines/describe-issue.ts';
import { parseHfConfig } from '../../policy/hf/config.ts';
import { ADAPTER_CONFIG_FILE } from '../../policy/hf/lora/peft-config.ts';
import { ADAPTER_WEIGHTS_FILE } from '../../policy/hf/lora/peft-tensor-names.ts';
import { CheckpointError } from './format.ts';
import { encodePeftAdapter } from '../../policy/hf/lora/encode-peft-adapter.ts';
import { HF_CHECKPOINT_FILES, HfCheckpointStateSchema, type HfCheckpointData, type HfCheckpointState } from './hf-format.ts';
import { encodeNamedWeights } from './hf-weights.ts';
import { checkpointJson, checkpointWriteStages, writeCheckpointFiles, type CheckpointWriteStage, type WriteCheckpointOptions } from './write.ts';

/** The stages of a write of a checkpoint in this mode, in order (write.ts). */
export function hfCheckpointWriteStages(mode: HfCheckpointState['hf']['mode']): readonly CheckpointWriteStage[] {
  return checkpointWriteStages(HF_CHECKPOINT_FILES[mode]);
}

const refuse = (detail: string): never => {
  throw new CheckpointError('CKPT_INCOMPATIBLE', `writeHfCheckpoint: ${detail}; nothing was written`);
};

/** The model files of mode "lora": the adapters as a PEFT folder's two files. */
async function loraFiles(data: HfCheckpointData, state: HfCheckpointState): Promise<[string, Uint8Array][]> {
  if (data.adapters === undefined || data.weights !== undefined) refuse('mode "lora" takes `adapters` and no `weights`');
  const ours = data.adapters!.config;
  const saved = state.hf.lora!;
  if (JSON.stringify({ ...ours, targetModules: [...ours.targetModules] }) !== JSON.stringify({ ...saved, targetModules: [...saved.targetModules] })) {
    refuse(`the adapters' LoRA config ${JSON.stringify(ours)} differs from state.hf.lora ${JSON.stringify(saved)}`);
  }
  const files = await encodePeftAdapter(data.adapters!, state.hf.base);
  return [[ADAPTER_CONFIG_FILE, files[ADAPTER_CONFIG_FILE]], [ADAPTER_WEIGHTS_FILE, files[ADAPTER_WEIGHTS_FILE]]];
}

/** The model files of mode "full": the base's config.json and every weight. */
async function fullFiles(data: HfCheckpointData, state: HfCheckpointState): Promise<[string, Uint8Array][]> {
  if (data.weights === undefined || data.adapters !== undefined) refuse('mode "full" takes `weights` and no `adapters`');
  const configFile = path.join(state.hf.base, 'config.json');
  const configBytes = new Uint8Array(await readFile(configFile));
  const config = parseHfConfig(JSON.parse(new TextDecoder().decode(configBytes)) as unknown, configFile);
  return [['config.json', configBytes], ['model.safetensors', await encodeNamedWeights(config, data.weights!)]];
}

/**
 * Writes `data` as the checkpoint at `dir` (e.g. `run/checkpoint`), replacing one that is there;
 * returns `dir`. `options.onStage` sees hfCheckpointWriteStages(mode).
 */
export async function writeHfCheckpoint(dir: string, data: HfCheckpointData, options: WriteCheckpointOptions = {}): Promise<string> {
  const parsed = HfCheckpointStateSchema.safeParse(data.state);
  if (!parsed.success) refuse(`state.json: ${describeIssue(parsed.error!)}`);
  const state = data.state;
  const model = state.hf.mode === 'lora' ? await loraFiles(data, state) : await fullFiles(data, state);
  const files: [string, Uint8Array][] = [['state.json', checkpointJson(state)], ...model, ['optimizer.bin', data.optimizer]];
  return writeCheckpointFiles(dir, { step: state.step, kind: 'hf', files }, options);
}
