/**
 * `config.json` of a Hugging Face causal LM, parsed into the few numbers the TF.js model needs.
 *
 * Supported: Qwen2/Qwen2.5 (`qwen2`: q/k/v bias), Qwen3 (`qwen3`: q/k RMSNorm, no bias) and
 * Llama 3.x (`llama`: RoPE scaling `llama3` or none). Anything that would silently compute a
 * different function is refused with an error naming the field: another `model_type`, another
 * activation, sliding-window attention, attention or MLP bias where the architecture has none,
 * a RoPE scaling type other than `default`/`llama3`.
 *
 * Both RoPE layouts are read: `rope_theta` + `rope_scaling` (transformers 4.x, what published
 * checkpoints carry) and `rope_parameters` (transformers 5.x writes it).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

import { HfModelError } from './hf-error.ts';
import { errorMessage } from '../../envs/error-message.ts';

export const HF_ARCHITECTURES = ['qwen2', 'qwen3', 'llama'] as const;
export type HfArchitecture = (typeof HF_ARCHITECTURES)[number];

export type RopeScaling =
  | { readonly type: 'default' }
  | {
      readonly type: 'llama3';
      readonly factor: number;
      readonly lowFreqFactor: number;
      readonly highFreqFactor: number;
      readonly originalMaxPositionEmbeddings: number;
    };

export interface HfModelConfig {
  readonly architecture: HfArchitecture;
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly rmsNormEps: number;
  readonly ropeTheta: number;
  readonly ropeScaling: RopeScaling;
  readonly maxPositionEmbeddings: number;
  readonly tieWordEmbeddings: boolean;
  /** Qwen2: q/k/v projections carry a bias (o_proj does not). */
  readonly qkvBias: boolean;
  /** Qwen3: RMSNorm over head_dim on q and k before RoPE. */
  readonly qkNorm: boolean;
}

const positiveInt = z.number().int().positive();

const ropeScalingSchema = z
  .object({
    rope_type: z.string().optional(),
    type: z.string().optional(),
    rope_theta: z.number().positive().optional(),
    factor: z.number().positive().optional(),
    low_freq_factor: z.number().positive().optional(),
    high_freq_factor: z.number().positive().optional(),
    original_max_position_embeddings: positiveInt.optional(),
  })
  .loose();

const configSchema = z
  .object({
    model_type: z.string(),
    vocab_size: positiveInt,
    hidden_size: positiveInt,
    intermediate_size: positiveInt,
    num_hidden_layers: positiveInt,
    num_attention_heads: positiveInt,
    num_key_value_heads: positiveInt.nullish(),
    head_dim: positiveInt.nullish(),
    rms_norm_eps: z.number().positive(),
    rope_theta: z.number().positive().nullish(),
    rope_scaling: ropeScalingSchema.nullish(),
    rope_parameters: ropeScalingSchema.nullish(),
    max_position_embeddings: positiveInt,
    tie_word_embeddings: z.boolean().nullish(),
    hidden_act: z.string().nullish(),
    attention_bias: z.boolean().nullish(),
    mlp_bias: z.boolean().nullish(),
    use_sliding_window: z.boolean().nullish(),
    layer_types: z.array(z.string()).nullish(),
    pretraining_tp: z.number().nullish(),
    partial_rotary_factor: z.number().nullish(),
  })
  .loose();

type RawConfig = z.infer<typeof configSchema>;

function unsupported(file: string, field: string, detail: string): HfModelError {
  return new HfModelError('HF_CONFIG_UNSUPPORTED', file, field, detail);
}

function parseRopeScaling(raw: RawConfig, file: string): { theta: number; scaling: RopeScaling } {
  // transformers 5 folds theta and scaling into rope_parameters; 4.x keeps them apart.
  const field = raw.rope_parameters != null ? 'rope_parameters' : 'rope_scaling';
  const params = raw.rope_parameters ?? raw.rope_scaling ?? undefined;
  const theta = params?.rope_theta ?? raw.rope_theta ?? 10000;
  const type = params?.rope_type ?? params?.type ?? 'default';
  const partial = (params?.['partial_rotary_factor'] as number | undefined) ?? raw.partial_rotary_factor ?? 1;
  if (partial !== 1) throw unsupported(file, 'partial_rotary_factor', `${partial} is not supported (only 1)`);
  if (type === 'default') return { theta, scaling: { type: 'default' } };
  if (type !== 'llama3') {
    throw unsupported(file, `${field}.rope_type`, `'${type}' is not supported (supported: default, llama3)`);
  }
  const need = (key: 'factor' | 'low_freq_factor' | 'high_freq_factor' | 'original_max_position_embeddings'): number => {
    const value = params?.[key];
    if (value === undefined) throw new HfModelError('HF_CONFIG_INVALID', file, `${field}.${key}`, 'required for rope_type llama3');
    return value;
  };
  return {
    theta,
    scaling: {
      type: 'llama3',
      factor: need('factor'),
      lowFreqFactor: need('low_freq_factor'),
      highFreqFactor: need('high_freq_factor'),
      originalMaxPositionEmbeddings: need('original_max_position_embeddings'),
    },
  };
}

/** Validates a parsed `config.json`; `file` names it in errors. */
export function parseHfConfig(json: unknown, file = 'config.json'): HfModelConfig {
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HfModelError('HF_CONFIG_INVALID', file, issue.path.join('.') || '(root)', issue.message);
  }
  const raw = parsed.data;
  const architecture = HF_ARCHITECTURES.find((a) => a === raw.model_type);
  if (architecture === undefined) {
    throw unsupported(file, 'model_type', `'${raw.model_type}' is not supported (supported: ${HF_ARCHITECTURES.join(', ')})`);
  }
  if ((raw.hidden_act ?? 'silu') !== 'silu') throw unsupported(file, 'hidden_act', `'${raw.hidden_act}' is not supported (only silu)`);
  if (raw.use_sliding_window === true) throw unsupported(file, 'use_sliding_window', 'sliding-window attention is not supported');
  const slidingLayer = (raw.layer_types ?? []).findIndex((t) => t !== 'full_attention');
  if (slidingLayer >= 0) {
    throw unsupported(file, `layer_types[${slidingLayer}]`, `'${raw.layer_types![slidingLayer]}' is not supported (only full_attention)`);
  }
  // Qwen2 always has q/k/v bias and no o_proj bias; Qwen3 and Llama have none unless attention_bias.
  if (architecture !== 'qwen2' && raw.attention_bias === true) {
    throw unsupported(file, 'attention_bias', `true is not supported for ${architecture}`);
  }
  if (raw.mlp_bias === true) throw unsupported(file, 'mlp_bias', 'true is not supported');
  if ((raw.pretraining_tp ?? 1) !== 1) throw unsupported(file, 'pretraining_tp', 'only 1 is supported');

  const numHeads = raw.num_attention_heads;
  const numKvHeads = raw.num_key_value_heads ?? numHeads;
  if (numHeads % numKvHeads !== 0) {
    throw new HfModelError('HF_CONFIG_INVALID', file, 'num_key_value_heads', `${numKvHeads} does not divide num_attention_heads ${numHeads}`);
  }
  // Qwen2 derives head_dim; Qwen3 and Llama may set it explicitly.
  const explicitHeadDim = architecture === 'qwen2' ? undefined : (raw.head_dim ?? undefined);
  if (explicitHeadDim === undefined && raw.hidden_size % numHeads !== 0) {
    throw new HfModelError('HF_CONFIG_INVALID', file, 'hidden_size', `${raw.hidden_size} is not a multiple of num_attention_heads ${numHeads}`);
  }
  const headDim = explicitHeadDim ?? raw.hidden_size / numHeads;
  if (headDim % 2 !== 0) throw new HfModelError('HF_CONFIG_INVALID', file, 'head_dim', `${headDim} must be even for RoPE`);
  const rope = parseRopeScaling(raw, file);
  return {
    architecture,
    vocabSize: raw.vocab_size,
    hiddenSize: raw.hidden_size,
    intermediateSize: raw.intermediate_size,
    numLayers: raw.num_hidden_layers,
    numHeads,
    numKvHeads,
    headDim,
    rmsNormEps: raw.rms_norm_eps,
    ropeTheta: rope.theta,
    ropeScaling: rope.scaling,
    maxPositionEmbeddings: raw.max_position_embeddings,
    tieWordEmbeddings: raw.tie_word_embeddings ?? false,
    qkvBias: architecture === 'qwen2',
    qkNorm: architecture === 'qwen3',
  };
}

/** Reads and validates `DIR/config.json`. */
export async function readHfConfig(dir: string): Promise<HfModelConfig> {
  const file = path.join(dir, 'config.json');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new HfModelError('HF_CONFIG_INVALID', file, '(file)', errorMessage(e));
  }
  return parseHfConfig(json, file);
}
