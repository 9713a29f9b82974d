/**
 * adapter_config.json as peft writes and reads it (peft_type LORA, task_type CAUSAL_LM). Writing
 * states every field a loader branches on, so peft, transformers and vLLM read the same adapter;
 * reading refuses what would change the computation but is not implemented here (DoRA, per-layer
 * ranks, bias training, fan_in_fan_out, extra saved modules), naming the field.
 */
import { HfModelError } from '../hf-error.ts';
import { isLoraTargetModule, LORA_TARGET_MODULES, normaliseTargets, type LoraConfig } from './lora-config.ts';

export const ADAPTER_CONFIG_FILE = 'adapter_config.json';

export interface PeftExportInfo {
  /** Recorded as base_model_name_or_path: the base model folder or hub id the adapter belongs to. */
  readonly baseModelNameOrPath: string;
}

export function toPeftConfig(config: LoraConfig, info: PeftExportInfo): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: info.baseModelNameOrPath,
    r: config.r,
    lora_alpha: config.alpha,
    lora_dropout: config.dropout,
    target_modules: [...config.targetModules],
    bias: 'none',
    fan_in_fan_out: false,
    use_rslora: config.useRslora,
    use_dora: false,
    lora_bias: false,
    init_lora_weights: true,
    inference_mode: true,
    modules_to_save: null,
    layers_to_transform: null,
    layers_pattern: null,
    rank_pattern: {},
    alpha_pattern: {},
    revision: null,
  };
}

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || v === false || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && Object.keys(v).length === 0);

/** Fields that must be absent, null, false or empty: each changes what the adapter computes. */
const MUST_BE_EMPTY = ['rank_pattern', 'alpha_pattern', 'use_dora', 'lora_bias', 'modules_to_save', 'layers_to_transform', 'layer_replication', 'exclude_modules', 'target_parameters', 'trainable_token_indices', 'fan_in_fan_out', 'use_qalora'] as const;

export interface ParsedPeftConfig {
  readonly config: LoraConfig;
  readonly baseModelNameOrPath: string | null;
}

/** Parses adapter_config.json's contents; `file` names it in errors. */
export function parsePeftConfig(json: unknown, file: string): ParsedPeftConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new HfModelError('HF_CONFIG_INVALID', file, '(root)', 'not a JSON object');
  const c = json as Record<string, unknown>;
  const bad = (field: string, detail: string): never => {
    throw new HfModelError('HF_CONFIG_INVALID', file, field, detail);
  };
  const unsupported = (field: string, detail: string): never => {
    throw new HfModelError('HF_CONFIG_UNSUPPORTED', file, field, detail);
  };
  if (c['peft_type'] !== 'LORA') unsupported('peft_type', `${JSON.stringify(c['peft_type'])} is not supported (only LORA)`);
  if (c['task_type'] !== undefined && c['task_type'] !== null && c['task_type'] !== 'CAUSAL_LM') unsupported('task_type', `${JSON.stringify(c['task_type'])} is not supported (only CAUSAL_LM)`);
  const r = c['r'];
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 1) bad('r', `must be a positive integer, got ${JSON.stringify(r)}`);
  const alpha = c['lora_alpha'];
  if (typeof alpha !== 'number' || !(alpha > 0)) bad('lora_alpha', `must be a positive number, got ${JSON.stringify(alpha)}`);
  const dropout = c['lora_dropout'] ?? 0;
  if (typeof dropout !== 'number' || !(dropout >= 0 && dropout < 1)) bad('lora_dropout', `must be a number in [0, 1), got ${JSON.stringify(dropout)}`);
  if (c['bias'] !== undefined && c['bias'] !== 'none') unsupported('bias', `${JSON.stringify(c['bias'])} is not supported (only "none")`);
  for (const field of MUST_BE_EMPTY) {
    if (!isEmpty(c[field])) unsupported(field, `${JSON.stringify(c[field])} is not supported (expected it absent, null, false or empty)`);
  }
  const targets = c['target_modules'];
  let names: string[];
  if (targets === 'all-linear') names = [...LORA_TARGET_MODULES];
  else if (Array.isArray(targets) && targets.every((t): t is string => typeof t === 'string')) names = targets;
  else if (typeof targets === 'string') names = unsupported('target_modules', `a regular expression (${JSON.stringify(targets)}) is not supported; list the module names`);
  else names = bad('target_modules', 'must be a list of module names or "all-linear"');
  const unknown = names.filter((n) => !isLoraTargetModule(n));
  if (unknown.length > 0) unsupported('target_modules', `${unknown.join(', ')} cannot be adapted here (supported: ${LORA_TARGET_MODULES.join(', ')})`);
  if (names.length === 0) bad('target_modules', 'is empty');
  const targetModules = normaliseTargets(names, 'target_modules');
  const useRslora = c['use_rslora'] ?? false;
  if (typeof useRslora !== 'boolean') bad('use_rslora', 'must be true or false');
  const base = c['base_model_name_or_path'];
  return {
    config: { r: r as number, alpha: alpha as number, dropout: dropout as number, targetModules, useRslora: useRslora as boolean },
    baseModelNameOrPath: typeof base === 'string' ? base : null,
  };
}
