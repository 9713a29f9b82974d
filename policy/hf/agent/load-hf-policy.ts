/**
 * `--agent hf:DIR [--adapter DIR]`: a Hugging Face model folder (and optionally a peft LoRA
 * adapter) loaded as an `HfPolicy` for an env. Order: the backend, the folder's files checked
 * (a folder that is not a model is refused naming the missing file, before any weight is read),
 * the model (with its memory check), the tokenizer (refused when its ids do not fit the model's
 * embedding, naming both files), the adapter attached.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { promptOf, type EnvDefinition, type PromptOptions } from '../../../envs/contract.ts';
import { selectBackend } from '../../backend.ts';
import type { BackendPreference } from '../../backend-preference.ts';
import type { HfCausalLm } from '../causal-lm.ts';
import { attachLora, loadPeftAdapter, type LoraCausalLm } from '../lora/index.ts';
import { loadHfModel } from '../load-hf-model.ts';
import { countParameters } from '../memory-estimate.ts';
import { HfTokenizerError, loadHfTokenizer, type HfTokenizer } from '../tokenizer/index.ts';
import { HfPolicy } from './hf-policy.ts';
import { HfPolicyError } from './hf-policy-error.ts';

export interface HfPolicySpec {
  /** The model folder: config.json, safetensors, tokenizer.json, a chat template. */
  readonly dir: string;
  /** A peft LoRA adapter folder (adapter_config.json, adapter_model.safetensors) for that model. */
  readonly adapter?: string;
  /** Where tokenizer.json, the chat template and generation_config.json are, when not in `dir` (a full fine-tuning checkpoint: its base folder). */
  readonly tokenizer?: string;
}

export interface LoadHfPolicyOptions {
  /** The env the agent acts in: its prompt frames the conversation. */
  readonly env: Pick<EnvDefinition, 'prompt'>;
  readonly promptOptions?: PromptOptions;
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxNewTokens?: number;
  readonly contextWindow?: number;
  /** TF.js backend (default auto: the best available). */
  readonly backend?: BackendPreference;
}

export interface LoadedHfPolicy {
  readonly policy: HfPolicy;
  readonly tokenizer: HfTokenizer;
  /** The tfjs backend it runs on. */
  readonly backend: string;
  /** One line for a run's log: name, architecture, parameters, vocabulary, context, backend. */
  readonly describe: string;
  /** Closes the policy's episodes and frees the weights (and the adapter). */
  dispose(): void;
}

/** The policy's name: `hf:<folder>`, `+<adapter folder>` with an adapter. */
export function hfPolicyName(spec: HfPolicySpec): string {
  const base = `hf:${path.basename(path.resolve(spec.dir))}`;
  return spec.adapter === undefined ? base : `${base}+${path.basename(path.resolve(spec.adapter))}`;
}

export async function loadHfPolicy(spec: HfPolicySpec, options: LoadHfPolicyOptions): Promise<LoadedHfPolicy> {
  checkModelFolder(spec.dir, spec.tokenizer ?? spec.dir);
  const backend = await selectBackend(options.backend ?? 'auto');
  const { model: base } = await loadHfModel(spec.dir, { backend });
  let lora: LoraCausalLm | undefined;
  try {
    const tokenizer = loadTokenizer(spec.tokenizer ?? spec.dir, base);
    let model = base;
    if (spec.adapter !== undefined) {
      const { adapters } = await loadPeftAdapter(spec.adapter, base.config);
      lora = attachLora(base, adapters);
      model = lora.withAdapters;
    }
    const name = hfPolicyName(spec);
    const policy = new HfPolicy({
      model,
      tokenizer,
      prompt: promptOf(options.env, options.promptOptions),
      name,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.topP !== undefined ? { topP: options.topP } : {}),
      ...(options.maxNewTokens !== undefined ? { maxNewTokens: options.maxNewTokens } : {}),
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    });
    const { config } = base;
    const describe =
      `${name}: ${config.architecture}, ${(countParameters(config) / 1e6).toFixed(2)}M parameters${lora ? ` + LoRA r${lora.adapters.config.r}` : ''}, ` +
      `vocabulary ${config.vocabSize}, context ${policy.contextWindow} tokens, on ${backend}`;
    const owned = lora;
    return {
      policy,
      tokenizer,
      backend,
      describe,
      dispose: () => {
        policy.dispose();
        if (owned !== undefined) owned.dispose();
        else base.dispose();
      },
    };
  } catch (error) {
    if (lora !== undefined) lora.dispose();
    else base.dispose();
    throw error;
  }
}

/** Refuses a folder that is not a model folder, naming the first missing file. */
function checkModelFolder(dir: string, tokenizerDir: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new HfPolicyError('HF_POLICY_NOT_A_MODEL', `${dir} is not a directory (hf:DIR names a Hugging Face model folder)`);
  const weights = ['model.safetensors', 'model.safetensors.index.json'];
  const missing = [
    ...(['config.json'].filter((file) => !existsSync(path.join(dir, file)))),
    ...(existsSync(path.join(tokenizerDir, 'tokenizer.json')) ? [] : [path.relative(dir, path.join(tokenizerDir, 'tokenizer.json'))]),
    ...(weights.some((file) => existsSync(path.join(dir, file))) ? [] : ['model.safetensors (or model.safetensors.index.json)']),
  ];
  if (missing.length > 0) {
    throw new HfPolicyError('HF_POLICY_NOT_A_MODEL', `${dir} is not a Hugging Face model folder: ${missing.map((file) => path.join(dir, file)).join(', ')} missing`);
  }
}

/** The folder's tokenizer; one whose ids pass the model's vocabulary is refused naming both files. */
function loadTokenizer(dir: string, model: HfCausalLm): HfTokenizer {
  try {
    return loadHfTokenizer(dir, { vocabSize: model.config.vocabSize });
  } catch (error) {
    if (error instanceof HfTokenizerError && error.code === 'HF_TOKENIZER_VOCAB_MISMATCH') {
      const message = error.message.replace(/^HF_TOKENIZER_VOCAB_MISMATCH: /, '').replace("the model's vocab_size", `${path.join(dir, 'config.json')}'s vocab_size`);
      throw new HfTokenizerError(error.code, message, error.file, error.field);
    }
    throw error;
  }
}
