/**
 * LoRA adapters as the two files of a PEFT adapter folder, in memory: adapter_config.json and
 * adapter_model.safetensors, byte for byte what policy/hf/lora/export-peft-adapter.ts writes (at
 * F32; tests/learner/checkpoint/hf-checkpoint.test.ts compares them), so a checkpoint folder is a
 * PEFT adapter and the crash-safe writer can put them beside its other files.
 */
import { LoraError } from '../../policy/hf/lora/lora-error.ts';
import type { LoraAdapters } from '../../policy/hf/lora/lora-adapters.ts';
import { ADAPTER_CONFIG_FILE, toPeftConfig } from '../../policy/hf/lora/peft-config.ts';
import { ADAPTER_WEIGHTS_FILE, peftTensorName } from '../../policy/hf/lora/peft-tensor-names.ts';
import { transposed } from '../../policy/hf/lora/transpose.ts';
import type { FloatDtype } from '../../policy/hf/safetensors/dtypes.ts';
import { encodeSafetensors, type Float32Tensor } from '../../policy/hf/safetensors/write-safetensors.ts';

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
export async function encodePeftAdapter(adapters: LoraAdapters, baseModelNameOrPath: string, dtype: FloatDtype = 'F32'): Promise<PeftAdapterFiles> {
  const config = `${JSON.stringify(toPeftConfig(adapters.config, { baseModelNameOrPath }), null, 2)}\n`;
  return {
    [ADAPTER_CONFIG_FILE]: new TextEncoder().encode(config),
    [ADAPTER_WEIGHTS_FILE]: encodeSafetensors(await peftTensors(adapters, dtype), { format: 'pt' }),
  };
}
