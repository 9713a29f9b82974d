/**
 * The checkpoint of a Hugging Face model run (issue 36), format version 1 with `kind: "hf"`:
 *
 *   manifest.json               as the transformer's (format.ts) plus `kind: "hf"`, written last
 *   state.json                  step, policy version, curriculum, optimizer scalars, RNG note, run
 *                               config, and `hf`: the base model folder, the mode, the LoRA config
 *   adapter_config.json         mode "lora": the trained adapters exactly as exportPeftAdapter
 *   adapter_model.safetensors     writes them, so the folder itself is a PEFT adapter peft/vLLM load
 *   config.json                 mode "full": the base's config.json and every weight under
 *   model.safetensors             transformers' names (F32): with tokenizer files, a model folder
 *   optimizer.bin               Adam's moments (learner/optimizer.ts, policy/transformer/weights-io.ts)
 *
 * The base model's weights are not copied in mode "lora": `hf.base` names the folder they are
 * read from (absolute, so a checkpoint read from another working directory finds it).
 */
import path from 'node:path';
import { z } from 'zod';
import type * as tf from '@tensorflow/tfjs-core';
import { HF_ARCHITECTURES } from '../../policy/hf/config.ts';
import { LORA_TARGET_MODULES, type LoraConfig } from '../../policy/hf/lora/lora-config.ts';
import type { LoraAdapters } from '../../policy/hf/lora/lora-adapters.ts';
import { CheckpointStateSchema } from './format.ts';

export const HF_MODES = ['lora', 'full'] as const;
export type HfTrainingMode = (typeof HF_MODES)[number];

/** The files of each mode, in write order (the manifest comes last, on its own). */
export const HF_CHECKPOINT_FILES: Readonly<Record<HfTrainingMode, readonly string[]>> = {
  lora: ['state.json', 'adapter_config.json', 'adapter_model.safetensors', 'optimizer.bin'],
  full: ['state.json', 'config.json', 'model.safetensors', 'optimizer.bin'],
};

/** policy/hf/lora/lora-config.ts's LoraConfig as stored in state.json. */
export const LoraConfigSchema = z.object({
  r: z.int().min(1),
  alpha: z.number().positive(),
  targetModules: z.array(z.enum(LORA_TARGET_MODULES)).min(1).readonly(),
  dropout: z.number().min(0).lt(1),
  useRslora: z.boolean(),
});
const _loraMatches: [z.infer<typeof LoraConfigSchema>, LoraConfig] extends [LoraConfig, z.infer<typeof LoraConfigSchema>] ? true : false = true;
void _loraMatches;

const absolutePath = z.string().min(1).refine((p) => path.isAbsolute(p), 'must be an absolute path');

/** state.json's `hf`: what model was trained and how. */
export const HfRunInfoSchema = z
  .object({
    /** The base model folder (config.json, safetensors, tokenizer files), absolute. */
    base: absolutePath,
    /** The PEFT adapter folder the run started from, if it did. */
    baseAdapter: absolutePath.optional(),
    mode: z.enum(HF_MODES),
    /** Mode "lora" only. */
    lora: LoraConfigSchema.optional(),
    modelType: z.enum(HF_ARCHITECTURES),
    vocabSize: z.int().min(1),
    /** Parameters of the base model. */
    numParameters: z.int().min(0),
  })
  .superRefine((info, ctx) => {
    if (info.mode === 'lora' && info.lora === undefined) ctx.addIssue({ code: 'custom', path: ['lora'], message: 'missing (mode "lora" needs the LoRA config)' });
    if (info.mode === 'full' && info.lora !== undefined) ctx.addIssue({ code: 'custom', path: ['lora'], message: 'must be absent in mode "full"' });
  });
export type HfRunInfo = Readonly<z.infer<typeof HfRunInfoSchema>>;

/** state.json of a Hugging Face run: the transformer's, with `hf` in place of `model`. */
export const HfCheckpointStateSchema = CheckpointStateSchema.omit({ model: true }).extend({ hf: HfRunInfoSchema });
export type HfCheckpointState = Readonly<z.infer<typeof HfCheckpointStateSchema>>;

/**
 * A Hugging Face run's checkpoint in memory. Mode "lora": `adapters` (written from the trainer's
 * variables; read back as fresh trainable variables to attach or to assign from). Mode "full":
 * `weights`, every tensor by its transformers name in the layout loadHfModel gives the model
 * ([in, out] for a projection, the tied embedding as the [hidden, vocab] output head): hf-weights.ts
 * `namedWeights(model)` makes it from an HfCausalLm. `optimizer`: encodeWeights of the optimizer's
 * moments.
 */
export interface HfCheckpointData {
  readonly state: HfCheckpointState;
  readonly adapters?: LoraAdapters;
  readonly weights?: Readonly<Record<string, tf.Tensor>>;
  readonly optimizer: Uint8Array;
}
