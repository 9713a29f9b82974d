/**
 * A Hugging Face model folder (and optionally a peft LoRA adapter folder) loaded for serving: the
 * model on the active TF.js backend, its tokenizer (a chat template is required: the endpoint
 * renders every request with it), and the name the server answers to. Each missing or bad file
 * fails here, naming it, before the server listens.
 */
import path from 'node:path';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import type { MemoryEstimate } from '../../../policy/hf/memory-estimate.ts';
import { attachLora } from '../../../policy/hf/lora/attach-lora.ts';
import { loadPeftAdapter } from '../../../policy/hf/lora/load-peft-adapter.ts';
import { loadHfTokenizer, type HfTokenizer } from '../../../policy/hf/tokenizer/index.ts';

export interface LoadServedHfOptions {
  /** A peft adapter folder (adapter_config.json + adapter_model.safetensors) applied to the model. */
  readonly adapter?: string;
}

export interface LoadedServedHf {
  readonly dir: string;
  readonly adapter?: string;
  /** The model to decode with: the base, or the base with the adapter's updates. */
  readonly model: HfCausalLm;
  readonly tokenizer: HfTokenizer;
  readonly estimate: MemoryEstimate;
  /** `hf:<folder name>`, with `+<adapter folder name>` when an adapter is applied. */
  readonly modelId: string;
  /** Other names a request may use: the folder name. */
  readonly aliases: readonly string[];
  /** Frees the weights (and the adapter's). */
  dispose(): void;
}

export async function loadServedHf(dir: string, options: LoadServedHfOptions = {}): Promise<LoadedServedHf> {
  const { model: base, estimate } = await loadHfModel(dir);
  try {
    const tokenizer = loadHfTokenizer(dir, { vocabSize: base.config.vocabSize });
    const name = path.basename(path.resolve(dir));
    if (options.adapter === undefined) {
      return { dir, model: base, tokenizer, estimate, modelId: `hf:${name}`, aliases: [name], dispose: () => base.dispose() };
    }
    const { adapters } = await loadPeftAdapter(options.adapter, base.config);
    const lora = attachLora(base, adapters);
    const modelId = `hf:${name}+${path.basename(path.resolve(options.adapter))}`;
    return { dir, adapter: options.adapter, model: lora.withAdapters, tokenizer, estimate, modelId, aliases: [], dispose: () => lora.dispose() };
  } catch (error) {
    base.dispose();
    throw error;
  }
}
