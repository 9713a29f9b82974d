/**
 * LoRA adapters as the two files of a PEFT adapter folder, in memory: adapter_config.json and
 * adapter_model.safetensors. export-peft-adapter.ts writes them to a folder; a Hugging Face run's
 * checkpoint (learner/checkpoint/hf-write.ts) puts them beside its other files, so its folder is
 * a PEFT adapter.
 */
import type { FloatDtype } from '../safetensors/dtypes.ts';
import { encodeSafetensors, type Float32Tensor } from '../safetensors/write-safetensors.ts';
import type { LoraAdapters } from './lora-adapters.ts';
import { LoraError } from './lora-error.ts';
import { ADAPTER_CONFIG_FILE, toPeftConfig, type PeftExportInfo } from './peft-config.ts';
import { ADAPTER_WEIGHTS_FILE, peftTensorName } from './peft-tensor-names.ts';
import { transposed } from './transpose.ts';

export interface PeftAdapterFiles {
  readonly [ADAPTER_CONFIG_FILE]: Uint8Array;
  readonly [ADAPTER_WEIGHTS_FILE]: Uint8Array;
}

/** The adapters' tensors in peft's layout ([r, in] and [out, r]) and names, checked finite. */
async function peftTensors(adapters: LoraAdapters, dtype: FloatDtype): Promise<Float32Tensor[]> {
  const out: Float32Tensor[] = [];
  for (const { module, a, b } of adapters.pairs) {
    const r = a.shape[1];
    for (const [which, v, rows, cols] of [['A', a, module.inFeatures, r], ['B', b, r, module.outFeatures]] as const) {
      const name = peftTensorName(module.path, which);
      const data = (await v.data()) as Float32Array;
      if (!data.every(Number.isFinite)) throw new LoraError('LORA_NON_FINITE', name, 'holds NaN or infinite values; nothing was written');
      out.push({ name, shape: [cols, rows], data: transposed(data, rows, cols), dtype });
    }
  }
  return out;
}

/** The two files of a PEFT adapter folder for `adapters`, whose base is `baseModelNameOrPath`. */
export async function encodePeftAdapter(adapters: LoraAdapters, baseModelNameOrPath: string | PeftExportInfo, dtype: FloatDtype = 'F32'): Promise<PeftAdapterFiles> {
  const info = typeof baseModelNameOrPath === 'string' ? { baseModelNameOrPath } : baseModelNameOrPath;
  const config = `${JSON.stringify(toPeftConfig(adapters.config, info), null, 2)}\n`;
  return {
    [ADAPTER_CONFIG_FILE]: new TextEncoder().encode(config),
    [ADAPTER_WEIGHTS_FILE]: encodeSafetensors(await peftTensors(adapters, dtype), { format: 'pt' }),
  };
}
