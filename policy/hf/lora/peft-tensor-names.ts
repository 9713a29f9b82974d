/**
 * peft's names for a LoRA adapter's tensors in adapter_model.safetensors: the module path under
 * `base_model.model.`, then `lora_A.weight` ([r, in]) or `lora_B.weight` ([out, r]).
 */
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';

const PREFIX = 'base_model.model.';

export function peftTensorName(modulePath: string, which: 'A' | 'B'): string {
  return `${PREFIX}${modulePath}.lora_${which}.weight`;
}
