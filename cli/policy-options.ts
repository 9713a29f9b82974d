/**
 * `--policy` on `train` and `sft`: our transformer (default) or a Hugging Face causal LM
 * (`hf:DIR`, docs/hf-models.md), with the options of the latter — the adapter to start from,
 * LoRA or full fine-tuning, and how the agent samples. Shared so an SFT run and the RL run after
 * it are described the same way.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { HF_TRAIN_MODES, hfDefaults, type HfRunOptions } from '../learner/hf-settings.ts';
import { positiveInt, positiveNumber } from './output.ts';

export interface PolicyCliOptions {
  policy?: string | undefined;
  adapter?: string;
  finetune?: string;
  loraR?: number;
  loraAlpha?: number;
  loraTargets?: string[];
  maxNewTokens?: number;
  topP?: number;
  contextWindow?: number;
  positionChunk?: number;
  recompute?: boolean;
}

/** `transformer` or `hf:DIR`, checked as the command line is parsed. */
export function parsePolicySpec(text: string): string {
  if (text === 'transformer') return text;
  if (text.startsWith('hf:') && text.length > 3) return text;
  throw new InvalidArgumentError(`unknown policy "${text}"; expected transformer or hf:DIR (a Hugging Face model folder)`);
}

const topP = (text: string): number => {
  const p = Number(text);
  if (!(p > 0 && p <= 1)) throw new InvalidArgumentError(`--top-p must be in (0, 1], got ${text}`);
  return p;
};

export function addPolicyOptions(command: Command): Command {
  const hf = 'Hugging Face model only';
  return command
    .option('--policy <policy>', 'what is trained: transformer (our own, default) or hf:DIR, a Hugging Face causal LM folder (Qwen2/2.5, Qwen3, Llama 3; docs/hf-models.md)', parsePolicySpec)
    .option('--adapter <dir>', `a PEFT LoRA adapter folder to start from (${hf})`)
    .addOption(new Option('--finetune <mode>', `lora (adapters only) or full (every weight) (${hf}; default ${hfDefaults.mode})`).choices(HF_TRAIN_MODES as unknown as string[]))
    .option('--lora-r <n>', `LoRA rank (${hf}; default ${hfDefaults.lora.r})`, positiveInt('--lora-r'))
    .option('--lora-alpha <a>', `LoRA alpha: the update is scaled by alpha / r (${hf}; default ${hfDefaults.lora.alpha})`, positiveNumber('--lora-alpha'))
    .option('--lora-targets <list>', `comma-separated projections to adapt (${hf}; default ${hfDefaults.lora.targetModules.join(',')})`, (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .option('--max-new-tokens <n>', `most tokens of one reply (${hf}; default ${hfDefaults.maxNewTokens})`, positiveInt('--max-new-tokens'))
    .option('--top-p <p>', `nucleus sampling of the rollouts (${hf}; default ${hfDefaults.topP})`, topP)
    .option('--context-window <n>', `most tokens of one episode (${hf}; default: the model's max_position_embeddings)`, positiveInt('--context-window'))
    .option('--position-chunk <n>', `positions per chunk of the learner's log-softmax: memory batch × chunk × vocab (${hf}; default ${hfDefaults.positionChunk})`, positiveInt('--position-chunk'))
    .option('--recompute', `recompute each layer in the backward pass instead of keeping its activations (${hf}; for 2–4k-token episodes)`);
}

const HF_ONLY = ['adapter', 'finetune', 'loraR', 'loraAlpha', 'loraTargets', 'maxNewTokens', 'topP', 'contextWindow', 'positionChunk', 'recompute'] as const;

/**
 * `--policy` of a run that continues a checkpoint (`--init`, `--resume`) and names none: a
 * Hugging Face run's base model folder (state.json's `hf.base`), so its options (--max-new-tokens,
 * --top-p, …) apply without restating the model. Undefined for our transformer's checkpoints.
 */
export async function policyOfCheckpoint(location: string | undefined): Promise<string | undefined> {
  if (location === undefined) return undefined;
  const { checkpointKind, locateCheckpoint } = await import('../learner/checkpoint/read.ts');
  if ((await checkpointKind(location)) !== 'hf') return undefined;
  const state = JSON.parse(await readFile(path.join(await locateCheckpoint(location), 'state.json'), 'utf8')) as { hf?: { base?: unknown } };
  return typeof state.hf?.base === 'string' ? `hf:${state.hf.base}` : undefined;
}

/** `{ hf }` when `--policy hf:DIR` was given; an HF-only option without it is an error naming it. */
export function givenPolicyConfig(o: PolicyCliOptions): { hf?: HfRunOptions } {
  if (o.policy === undefined || o.policy === 'transformer') {
    const stray = HF_ONLY.find((k) => o[k] !== undefined);
    if (stray !== undefined) throw new Error(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is an option of a Hugging Face model: give --policy hf:DIR`);
    return {};
  }
  const lora = {
    ...(o.loraR !== undefined ? { r: o.loraR } : {}),
    ...(o.loraAlpha !== undefined ? { alpha: o.loraAlpha } : {}),
    ...(o.loraTargets !== undefined ? { targetModules: o.loraTargets } : {}),
  };
  return {
    hf: {
      model: o.policy.slice('hf:'.length),
      ...(o.adapter !== undefined ? { adapter: o.adapter } : {}),
      ...(o.finetune !== undefined ? { mode: o.finetune as HfRunOptions['mode'] & string } : {}),
      ...(Object.keys(lora).length > 0 ? { lora } : {}),
      ...(o.maxNewTokens !== undefined ? { maxNewTokens: o.maxNewTokens } : {}),
      ...(o.topP !== undefined ? { topP: o.topP } : {}),
      ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
      ...(o.positionChunk !== undefined ? { positionChunk: o.positionChunk } : {}),
      ...(o.recompute === true ? { recompute: true } : {}),
    },
  };
}
