/**
 * What a LoRA adapter is: rank, alpha, the projections it targets (by peft's module names) and
 * how its update is scaled. Validated once here, so the rest of policy/hf/lora/ can trust it.
 */
import { LoraError } from './lora-error.ts';

/** The projections of a Llama/Qwen decoder layer an adapter may target, in model order. */
export const LORA_TARGET_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraTargetModule = (typeof LORA_TARGET_MODULES)[number];

export interface LoraConfig {
  /** Rank r of the update A·B. */
  readonly r: number;
  /** lora_alpha: the update is scaled by alpha / r (alpha / √r with `useRslora`). */
  readonly alpha: number;
  /** Targeted projections; stored in LORA_TARGET_MODULES order. */
  readonly targetModules: readonly LoraTargetModule[];
  /**
   * lora_dropout. Only 0 can be trained here (dropout is not implemented); an imported adapter
   * keeps its value for export, and inference never applies dropout, as peft's eval mode.
   */
  readonly dropout: number;
  /** rsLoRA scaling alpha / √r. */
  readonly useRslora: boolean;
}

export interface LoraOptions {
  readonly r: number;
  readonly alpha: number;
  /** Default: all seven projections. */
  readonly targetModules?: readonly string[];
  /** Default 0; anything else is refused (dropout is not implemented yet). */
  readonly dropout?: number;
  readonly useRslora?: boolean;
}

export function isLoraTargetModule(name: string): name is LoraTargetModule {
  return (LORA_TARGET_MODULES as readonly string[]).includes(name);
}

/** Sorted into model order, duplicates dropped; an unknown name is refused. */
export function normaliseTargets(names: readonly string[], field = 'targetModules'): LoraTargetModule[] {
  for (const name of names) {
    if (!isLoraTargetModule(name)) {
      throw new LoraError('LORA_CONFIG_INVALID', field, `unknown target module ${JSON.stringify(name)} (supported: ${LORA_TARGET_MODULES.join(', ')})`);
    }
  }
  if (names.length === 0) throw new LoraError('LORA_CONFIG_INVALID', field, 'no target modules');
  return LORA_TARGET_MODULES.filter((m) => names.includes(m));
}

/** Builds a config for a new, trainable adapter. */
export function loraConfig(options: LoraOptions): LoraConfig {
  if (!Number.isInteger(options.r) || options.r < 1) throw new LoraError('LORA_CONFIG_INVALID', 'r', `must be a positive integer, got ${options.r}`);
  if (!Number.isFinite(options.alpha) || options.alpha <= 0) throw new LoraError('LORA_CONFIG_INVALID', 'alpha', `must be a positive number, got ${options.alpha}`);
  const dropout = options.dropout ?? 0;
  if (dropout !== 0) throw new LoraError('LORA_UNSUPPORTED', 'dropout', `LoRA dropout ${dropout} is not implemented; use 0`);
  return {
    r: options.r,
    alpha: options.alpha,
    targetModules: normaliseTargets(options.targetModules ?? LORA_TARGET_MODULES),
    dropout,
    useRslora: options.useRslora ?? false,
  };
}

/** The factor peft multiplies (x·A)·B by. */
export function loraScale(config: Pick<LoraConfig, 'r' | 'alpha' | 'useRslora'>): number {
  return config.useRslora ? config.alpha / Math.sqrt(config.r) : config.alpha / config.r;
}
