/**
 * What `actorgym serve-policy` serves: exactly one of `--checkpoint DIR` (a trained run) and
 * `--policy SPEC`, where SPEC is `hf:DIR` (a Hugging Face model folder, optionally with
 * `--adapter DIR`, a peft LoRA adapter) or `checkpoint:DIR` (the same as `--checkpoint DIR`).
 */
import { InvalidArgumentError } from 'commander';

export type ServedSpec =
  | { readonly kind: 'checkpoint'; readonly dir: string }
  | { readonly kind: 'hf'; readonly dir: string; readonly adapter?: string };

export interface ServedSpecFlags {
  readonly checkpoint?: string;
  readonly policy?: string;
  readonly adapter?: string;
}

export function servedSpecOf(flags: ServedSpecFlags): ServedSpec {
  if (flags.checkpoint !== undefined && flags.policy !== undefined) {
    throw new InvalidArgumentError('give one of --checkpoint DIR and --policy SPEC, not both');
  }
  if (flags.checkpoint === undefined && flags.policy === undefined) {
    throw new InvalidArgumentError('give --checkpoint DIR (a trained run) or --policy hf:DIR (a Hugging Face model folder)');
  }
  const spec = flags.checkpoint !== undefined ? { kind: 'checkpoint' as const, dir: flags.checkpoint } : parsePolicySpec(flags.policy!);
  if (spec.kind === 'checkpoint') {
    if (flags.adapter !== undefined) throw new InvalidArgumentError('--adapter applies to --policy hf:DIR only; a checkpoint holds its own weights');
    return spec;
  }
  return { ...spec, ...(flags.adapter !== undefined ? { adapter: flags.adapter } : {}) };
}

/** `hf:DIR` or `checkpoint:DIR`. */
export function parsePolicySpec(text: string): ServedSpec {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const dir = colon < 0 ? '' : text.slice(colon + 1);
  if ((kind !== 'hf' && kind !== 'checkpoint') || dir === '') {
    throw new InvalidArgumentError(`--policy must be hf:DIR (a Hugging Face model folder) or checkpoint:DIR (a trained run), got "${text}"`);
  }
  return { kind, dir };
}
