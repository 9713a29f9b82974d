/**
 * The tensors of a Hugging Face model's training run: the base model (adapters off: the frozen
 * reference of the KL term), the trained model (LoRA adapters attached, or every weight a
 * variable in full fine-tuning), Adam over the trained variables, and the tokenizer.
 *
 * LoRA: the agent decodes with the adapted model, whose adapter variables Adam updates in place,
 * so the rollouts of the next step use the new weights with no copy (synchronous training; under
 * asynchronous training the agent decodes with its own snapshot, hf-agent-weights.ts). The KL reference is always
 * the base model folder's weights (adapters off), also for a run started from an SFT run's
 * adapters or weights, so a resumed run finds its reference where it started: in `hf.model`.
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';
import type { HfModelConfig } from '../../policy/hf/config.ts';
import { loadHfModel } from '../../policy/hf/load-hf-model.ts';
import { attachLora, initLoraAdapters, loadPeftAdapter, loraConfig, type LoraAdapters } from '../../policy/hf/lora/index.ts';
import { loadHfTokenizer, type HfTokenizer } from '../../policy/hf/tokenizer/index.ts';
import { countParameters } from '../../policy/hf/memory-estimate.ts';
import { assertAgentCopyFits } from './hf-agent-copy-memory.ts';
import { deriveSeed } from '../../machines/seed.ts';
import type { HfRunSettings } from '../hf-settings.ts';
import { LearnerOptimizer } from '../optimizer.ts';
import type { ExternalScoring } from '../scoring-model.ts';
import { hfScoring } from './hf-scoring.ts';
import { createValueHead, trainableWeights, type TrainableHfModel, type ValueHead } from '../../policy/hf/train/index.ts';

export interface HfRunModels {
  readonly tokenizer: HfTokenizer;
  readonly config: HfModelConfig;
  /** The model the learner trains (and the agent decodes with, unless it has its own weights: hf-agent-weights.ts). */
  readonly model: HfCausalLm;
  /** LoRA mode: the adapters (the only trained variables). */
  readonly adapters: LoraAdapters | undefined;
  /** Full mode: every weight as a variable. */
  readonly full: TrainableHfModel | undefined;
  readonly scoring: ExternalScoring;
  readonly reference: ExternalScoring;
  readonly optimizer: LearnerOptimizer;
  /** PPO's critic (a variable pair the optimizer trains with the policy). */
  readonly valueHead: ValueHead | undefined;
  readonly parameters: number;
  readonly trainable: number;
  dispose(): void;
}

export interface OpenHfModelsOptions {
  readonly settings: HfRunSettings;
  readonly lr: number;
  readonly seed: number;
  readonly backend: string;
  /**
   * What a checkpoint continues from (resume, or `--init` of an SFT run): its trained adapters
   * (taken over: the models own them from here) or its full weights in transformers' layout
   * (copied into the variables; the caller frees them).
   */
  readonly start?: { readonly adapters?: LoraAdapters; readonly weights?: Readonly<Record<string, tf.Tensor>>; readonly valueHead?: SavedValueHead };
  /** PPO: a value head on the final hidden state, trained with the policy (a fresh one unless `start` has it). */
  readonly critic: boolean;
  /**
   * Asynchronous training: the agent will decode with its own copies of the trained weights
   * (hf-agent-weights.ts); full fine-tuning is refused when they cannot fit (hf-agent-copy-memory.ts).
   */
  readonly agentCopy?: boolean;
}

/** A saved value head's tensors (copied into the variables; the caller frees them). */
export interface SavedValueHead {
  readonly w: tf.Tensor;
  readonly b: tf.Tensor;
}

const LORA_SEED_STREAM = 0x10a;
const VALUE_SEED_STREAM = 0x10b;
/** Variable names must be unique in the engine: each full fine-tuning copy gets its own prefix. */
let fullRuns = 0;

async function adaptersFor(o: OpenHfModelsOptions, config: HfModelConfig): Promise<LoraAdapters> {
  if (o.start?.adapters !== undefined) return o.start.adapters;
  if (o.settings.adapter !== undefined) return (await loadPeftAdapter(o.settings.adapter, config)).adapters;
  const l = o.settings.lora;
  return initLoraAdapters(config, loraConfig({ r: l.r, alpha: l.alpha, targetModules: l.targetModules, useRslora: l.rslora }), deriveSeed(o.seed, LORA_SEED_STREAM));
}

/**
 * Sets the trained variables from a checkpoint's weights, which are in the forward pass's layout
 * (learner/checkpoint/hf-weights.ts `namedWeights`: [in, out] projections, a tied embedding as the
 * [hidden, vocab] head), as the variables are. A missing or misshapen tensor names itself.
 */
function assignModelLayout(full: TrainableHfModel, weights: Readonly<Record<string, tf.Tensor>>): void {
  for (const [name, v] of full.variables) {
    const t = weights[name];
    if (t === undefined) throw new Error(`the checkpoint's weights lack ${name}`);
    if (t.shape.join() !== v.shape.join()) throw new Error(`the checkpoint's ${name} is [${t.shape.join(', ')}], the model's [${v.shape.join(', ')}]`);
    v.assign(t);
  }
}

function valueHeadFor(o: OpenHfModelsOptions, hidden: number): ValueHead {
  const head = createValueHead(hidden, deriveSeed(o.seed, VALUE_SEED_STREAM));
  const saved = o.start?.valueHead;
  if (saved !== undefined) {
    if (saved.w.shape.join() !== head.w.shape.join() || saved.b.shape.join() !== head.b.shape.join()) {
      throw new Error(`the saved value head is [${saved.w.shape.join(', ')}], the model's hidden size is ${hidden}`);
    }
    head.w.assign(saved.w as tf.Tensor2D);
    head.b.assign(saved.b as tf.Tensor1D);
  }
  return head;
}

export async function openHfModels(o: OpenHfModelsOptions): Promise<HfRunModels> {
  const { settings } = o;
  const { model: base, estimate } = await loadHfModel(settings.model, { backend: o.backend });
  if (settings.mode === 'full' && o.agentCopy === true) {
    try {
      assertAgentCopyFits(estimate, o.backend, settings.model);
    } catch (error) {
      base.dispose();
      throw error;
    }
  }
  const tokenizer = loadHfTokenizer(settings.model, { vocabSize: base.config.vocabSize });
  const valueHead = o.critic ? valueHeadFor(o, base.config.hiddenSize) : undefined;
  const critic: [string, tf.Variable][] = valueHead ? [['value_head.w', valueHead.w], ['value_head.b', valueHead.b]] : [];
  const scoringOptions = { positionChunk: settings.positionChunk, recompute: settings.recompute };
  const trainedScoring = { ...scoringOptions, ...(valueHead ? { valueHead } : {}) };
  const disposeCritic = (): void => { valueHead?.w.dispose(); valueHead?.b.dispose(); };
  const parameters = countParameters(base.config);
  if (settings.mode === 'lora') {
    const adapters = await adaptersFor(o, base.config);
    const lora = attachLora(base, adapters);
    const optimizer = new LearnerOptimizer(o.lr, [...adapters.pairs.flatMap((p) => [[`${p.module.path}.lora_A`, p.a], [`${p.module.path}.lora_B`, p.b]] as const), ...critic]);
    return {
      tokenizer, config: base.config, model: lora.withAdapters, adapters, full: undefined,
      scoring: hfScoring(lora.withAdapters, trainedScoring), reference: hfScoring(base, scoringOptions),
      optimizer, valueHead, parameters, trainable: adapters.parameterCount,
      dispose: () => { optimizer.dispose(); lora.dispose(); disposeCritic(); },
    };
  }
  // The base model stays beside the trained copy as the KL reference (twice the weights in memory).
  const full = trainableWeights(base, { namePrefix: `full${++fullRuns}/` });
  if (o.start?.weights !== undefined) assignModelLayout(full, o.start.weights);
  const optimizer = new LearnerOptimizer(o.lr, [...full.variables.entries(), ...critic]);
  return {
    tokenizer, config: base.config, model: full.model, adapters: undefined, full,
    scoring: hfScoring(full.model, trainedScoring), reference: hfScoring(base, scoringOptions),
    optimizer, valueHead, parameters, trainable: parameters,
    dispose: () => { optimizer.dispose(); full.dispose(); base.dispose(); disposeCritic(); },
  };
}
