/**
 * A set of LoRA adapters, one (A, B) pair of trainable tf.Variables per adapted projection, stored
 * [in, r] and [r, out] (the transposes of peft's lora_A/lora_B weights; see policy/hf/linear.ts).
 *
 * `initLoraAdapters` initialises like peft's default (init_lora_weights=True): A from
 * kaiming_uniform(a=√5), i.e. uniform in ±1/√in, B zeros, so a fresh adapter changes nothing.
 * A is drawn from a seeded generator per module (seed, layer, target), so the draw of one module
 * does not depend on which others are targeted.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfModelConfig } from '../config.ts';
import { mixSeed, mulberry32 } from '../../rng.ts';
import { LORA_TARGET_MODULES, type LoraConfig } from './lora-config.ts';
import { loraModules, type LoraModule } from './lora-modules.ts';

export interface LoraPair {
  readonly module: LoraModule;
  /** [in, r]. */
  readonly a: tf.Variable<tf.Rank.R2>;
  /** [r, out]. */
  readonly b: tf.Variable<tf.Rank.R2>;
}

export class LoraAdapters {
  private readonly byPath: ReadonlyMap<string, LoraPair>;

  constructor(
    readonly config: LoraConfig,
    /** In model order (loraModules). */
    readonly pairs: readonly LoraPair[],
  ) {
    this.byPath = new Map(pairs.map((p) => [p.module.path, p]));
  }

  /** The pair of a transformers module path, if that projection is adapted. */
  get(path: string): LoraPair | undefined {
    return this.byPath.get(path);
  }

  /** Every A and B: the only variables a LoRA optimiser updates. */
  get variables(): tf.Variable[] {
    return this.pairs.flatMap((p) => [p.a, p.b]);
  }

  get parameterCount(): number {
    return this.pairs.reduce((n, p) => n + p.a.size + p.b.size, 0);
  }

  dispose(): void {
    for (const p of this.pairs) {
      p.a.dispose();
      p.b.dispose();
    }
  }
}

/** A trainable variable holding `initial`'s values (`initial` is consumed). */
export function trainable(initial: tf.Tensor2D): tf.Variable<tf.Rank.R2> {
  const v = tf.variable(initial, true);
  initial.dispose();
  return v;
}

/** Fresh adapters for `model` (peft's default initialisation, A seeded). */
export function initLoraAdapters(model: Pick<HfModelConfig, 'hiddenSize' | 'intermediateSize' | 'numHeads' | 'numKvHeads' | 'headDim' | 'numLayers'>, config: LoraConfig, seed: number): LoraAdapters {
  const pairs = loraModules(model, config.targetModules).map((module): LoraPair => {
    const rng = mulberry32(mixSeed(seed, module.layer, LORA_TARGET_MODULES.indexOf(module.target)));
    const bound = 1 / Math.sqrt(module.inFeatures);
    const values = new Float32Array(module.inFeatures * config.r);
    for (let i = 0; i < values.length; i++) values[i] = (2 * rng.next() - 1) * bound;
    return { module, a: trainable(tf.tensor2d(values, [module.inFeatures, config.r])), b: trainable(tf.zeros([config.r, module.outFeatures])) };
  });
  return new LoraAdapters(config, pairs);
}
