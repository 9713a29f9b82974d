/**
 * LoRA adapters for the Hugging Face causal LMs (issue 36): create (peft's initialisation, seeded),
 * attach to a base model (adapters on / off views sharing the base weights), train (only the
 * adapters are variables), export as a peft adapter folder and load one back.
 */
export { attachLora, LoraCausalLm } from './attach-lora.ts';
export { encodePeftAdapter, type PeftAdapterFiles } from './encode-peft-adapter.ts';
export { exportPeftAdapter, type ExportPeftOptions } from './export-peft-adapter.ts';
export { mergeLora, mergedWeight } from './merge-lora.ts';
export { loadPeftAdapter, type LoadedPeftAdapter } from './load-peft-adapter.ts';
export { initLoraAdapters, LoraAdapters, type LoraPair } from './lora-adapters.ts';
export { isLoraTargetModule, LORA_TARGET_MODULES, loraConfig, loraScale, type LoraConfig, type LoraOptions, type LoraTargetModule } from './lora-config.ts';
export { LoraError, type LoraErrorCode } from './lora-error.ts';
export { loraModules, type LoraModule } from './lora-modules.ts';
export { ADAPTER_CONFIG_FILE, parsePeftConfig, toPeftConfig, type ParsedPeftConfig, type PeftExportInfo } from './peft-config.ts';
export { ADAPTER_WEIGHTS_FILE, peftTensorName } from './peft-tensor-names.ts';
