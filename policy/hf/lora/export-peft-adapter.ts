/**
 * Writes LoRA adapters as a peft adapter folder (adapter_config.json + adapter_model.safetensors,
 * F32, tensors [r, in] and [out, r] under peft's names) that peft, transformers and vLLM load.
 *
 * Atomic: everything is written into a fresh sibling folder `<out>.partial-XXXXXX`, which is
 * renamed to `<out>` only when complete; on any error it is removed, so `<out>` is either absent
 * (or the previous adapter, untouched) or a whole adapter. An existing `<out>` is refused unless
 * `overwrite` is set; then it is replaced only after the new folder is complete.
 */
import { mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { encodePeftAdapter } from './encode-peft-adapter.ts';
import type { LoraAdapters } from './lora-adapters.ts';
import { LoraError } from './lora-error.ts';
import { ADAPTER_CONFIG_FILE } from './peft-config.ts';
import { ADAPTER_WEIGHTS_FILE } from './peft-tensor-names.ts';

export interface ExportPeftOptions {
  /** Recorded as base_model_name_or_path (the base model folder, or its hub id). */
  readonly baseModelNameOrPath: string;
  /** Replace an existing `out` (default false: refuse). */
  readonly overwrite?: boolean;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

export async function exportPeftAdapter(adapters: LoraAdapters, out: string, options: ExportPeftOptions): Promise<void> {
  const target = path.resolve(out);
  if (!options.overwrite && (await exists(target))) throw new LoraError('LORA_OUT_EXISTS', target, 'already exists (pass overwrite to replace it)');
  const partial = await mkdtemp(`${target}.partial-`);
  try {
    const files = await encodePeftAdapter(adapters, options);
    await writeFile(path.join(partial, ADAPTER_CONFIG_FILE), files[ADAPTER_CONFIG_FILE]);
    await writeFile(path.join(partial, ADAPTER_WEIGHTS_FILE), files[ADAPTER_WEIGHTS_FILE]);
    if (await exists(target)) {
      // rename() cannot replace a non-empty folder: move the old one aside first, drop it after.
      const old = `${partial}.old`;
      await rename(target, old);
      try {
        await rename(partial, target);
      } catch (e) {
        await rename(old, target);
        throw e;
      }
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(partial, target);
    }
  } catch (e) {
    await rm(partial, { recursive: true, force: true });
    throw e;
  }
}
