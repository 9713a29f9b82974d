/**
 * How a run trains a Hugging Face causal LM (`--policy hf:DIR`): the model folder, the adapter it
 * starts from, LoRA or full fine-tuning, and how the agent samples. One zod schema; the run's
 * config holds it as `hf` (absent for our transformer).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeIssue } from '../machines/describe-issue.ts';

export const HF_TRAIN_MODES = ['lora', 'full'] as const;
export type HfTrainMode = (typeof HF_TRAIN_MODES)[number];

export const HfLoraSettingsSchema = z.object({
  r: z.int().min(1),
  alpha: z.number().positive(),
  targetModules: z.array(z.string()).min(1).readonly(),
  rslora: z.boolean(),
});

export const HfRunSettingsSchema = z.object({
  /** The base model folder, absolute. */
  model: z.string().min(1),
  /** A PEFT adapter the run starts from (merged into nothing: trained further in LoRA mode), absolute. */
  adapter: z.string().min(1).exactOptional(),
  mode: z.enum(HF_TRAIN_MODES),
  lora: HfLoraSettingsSchema,
  /** Most tokens of one reply. */
  maxNewTokens: z.int().min(1),
  topP: z.number().gt(0).max(1),
  /** Most tokens of one episode (default and cap: the model's max_position_embeddings). */
  contextWindow: z.int().min(1).exactOptional(),
  /** Positions per chunk of the lm head's log-softmax in the learner (memory: batch × chunk × vocab floats). */
  positionChunk: z.int().min(1),
  /** Recompute each decoder layer in the backward pass instead of keeping its activations. */
  recompute: z.boolean(),
});
export type HfRunSettings = Readonly<z.infer<typeof HfRunSettingsSchema>>;

export const hfDefaults = {
  mode: 'lora' as HfTrainMode,
  lora: { r: 8, alpha: 16, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'], rslora: false },
  maxNewTokens: 128,
  topP: 1,
  positionChunk: 256,
  recompute: false,
};

/** What a caller gives: the model folder, the rest optional. */
export type HfRunOptions = { readonly model: string } & Partial<Omit<HfRunSettings, 'model' | 'lora'>> & { readonly lora?: Partial<HfRunSettings['lora']> };

/** The settings with defaults, folders made absolute, checked (an error names the field). */
export function resolveHfSettings(options: HfRunOptions): HfRunSettings {
  const settings = {
    model: path.resolve(options.model),
    ...(options.adapter !== undefined ? { adapter: path.resolve(options.adapter) } : {}),
    mode: options.mode ?? hfDefaults.mode,
    lora: { ...hfDefaults.lora, ...options.lora },
    maxNewTokens: options.maxNewTokens ?? hfDefaults.maxNewTokens,
    topP: options.topP ?? hfDefaults.topP,
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    positionChunk: options.positionChunk ?? hfDefaults.positionChunk,
    recompute: options.recompute ?? hfDefaults.recompute,
  };
  for (const [flag, dir] of [['--policy hf:', settings.model], ['--adapter ', settings.adapter]] as const) {
    if (dir !== undefined && !(existsSync(dir) && statSync(dir).isDirectory())) throw new Error(`${flag}${dir}: no such folder (a Hugging Face ${flag === '--adapter ' ? 'PEFT adapter' : 'model'} folder)`);
  }
  const parsed = HfRunSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new Error(`hf settings: ${describeIssue(parsed.error)}`);
  if (parsed.data.adapter !== undefined && parsed.data.mode === 'full') throw new Error('hf settings: an adapter (--adapter) is trained in LoRA mode, not full fine-tuning');
  return parsed.data;
}
