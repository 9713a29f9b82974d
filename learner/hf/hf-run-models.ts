/**
 * The tensors of a Hugging Face model's training run: the base model (adapters off: the frozen
 * reference of the KL term), the trained model (LoRA adapters attached, or every weight a
 * variable in full fine-tuning), Adam over the trained variables, and the tokenizer.
 *
 * LoRA: the agent decodes with the adapted model, whose adapter variables Adam updates in place,
 * so the rollouts of the next step use the new weights with no copy. Full fine-tuning keeps a
 * second, frozen copy of the initial weights as the reference (twice the model's memory).
 */
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';
import type { HfModelConfig } from '../../policy/hf/config.ts';
import { loadHfModel } from '../../policy/hf/load-hf-model.ts';
import { attachLora, initLoraAdapters, loadPeftAdapter, loraConfig, type LoraAdapters } from '../../policy/hf/lora/index.ts';
import { loadHfTokenizer, type HfTokenizer } from '../../policy/hf/tokenizer/index.ts';
import { countParameters } from '../../policy/hf/memory-estimate.ts';
import { deriveSeed } from '../../machines/seed.ts';
import type { HfRunSettings } from '../hf-settings.ts';
import { LearnerOptimizer } from '../optimizer.ts';
import type { ExternalScoring } from '../scoring-model.ts';
import { hfScoring } from './hf-scoring.ts';
import { trainableWeights, type TrainableWeights } from './trainable-weights.ts';

export interface HfRunModels {
  readonly tokenizer: HfTokenizer;
  readonly config: HfModelConfig;
  /** The model the agent decodes with and the learner trains. */
  readonly model: HfCausalLm;
  /** LoRA mode: the adapters (the only trained variables). */
  readonly adapters: LoraAdapters | undefined;
  /** Full mode: every weight as a variable. */
  readonly full: TrainableWeights | undefined;
  readonly scoring: ExternalScoring;
  readonly reference: ExternalScoring;
  readonly optimizer: LearnerOptimizer;
  readonly parameters: number;
  readonly trainable: number;
  dispose(): void;
}

export interface OpenHfModelsOptions {
  readonly settings: HfRunSettings;
  readonly lr: number;
  readonly seed: number;
  readonly backend: string;
  /** Trained adapters to continue from (resume, or `--init` of an SFT run), replacing the fresh or `settings.adapter` ones. */
  readonly adapterDir?: string;
  /** Full weights to continue from (a full fine-tuning checkpoint's model.safetensors folder). */
  readonly weightsDir?: string;
}

const LORA_SEED_STREAM = 0x10a;

async function adaptersFor(o: OpenHfModelsOptions, config: HfModelConfig): Promise<LoraAdapters> {
  const dir = o.adapterDir ?? o.settings.adapter;
  if (dir !== undefined) return (await loadPeftAdapter(dir, config)).adapters;
  const l = o.settings.lora;
  return initLoraAdapters(config, loraConfig({ r: l.r, alpha: l.alpha, targetModules: l.targetModules, useRslora: l.rslora }), deriveSeed(o.seed, LORA_SEED_STREAM));
}

export async function openHfModels(o: OpenHfModelsOptions): Promise<HfRunModels> {
  const { settings } = o;
  const { model: base } = await loadHfModel(settings.model, { backend: o.backend });
  const tokenizer = loadHfTokenizer(settings.model, { vocabSize: base.config.vocabSize });
  const scoringOptions = { positionChunk: settings.positionChunk, recompute: settings.recompute };
  const parameters = countParameters(base.config);
  if (settings.mode === 'lora') {
    const adapters = await adaptersFor(o, base.config);
    const lora = attachLora(base, adapters);
    const optimizer = new LearnerOptimizer(o.lr, adapters.pairs.flatMap((p) => [[`${p.module.path}.lora_A`, p.a], [`${p.module.path}.lora_B`, p.b]] as const));
    return {
      tokenizer, config: base.config, model: lora.withAdapters, adapters, full: undefined,
      scoring: hfScoring(lora.withAdapters, scoringOptions), reference: hfScoring(base, scoringOptions),
      optimizer, parameters, trainable: adapters.parameterCount,
      dispose: () => { optimizer.dispose(); lora.dispose(); },
    };
  }
  // The weights the run starts from are also its KL reference (kept frozen beside the trained copy).
  let reference = base;
  if (o.weightsDir !== undefined) {
    reference = (await loadHfModel(o.weightsDir, { backend: o.backend })).model;
    base.dispose();
  }
  const full = trainableWeights(reference);
  const optimizer = new LearnerOptimizer(o.lr, [...full.variables.entries()]);
  return {
    tokenizer, config: reference.config, model: full.model, adapters: undefined, full,
    scoring: hfScoring(full.model, scoringOptions), reference: hfScoring(reference, scoringOptions),
    optimizer, parameters, trainable: parameters,
    dispose: () => { optimizer.dispose(); full.dispose(); reference.dispose(); },
  };
}
