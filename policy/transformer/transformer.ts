/**
 * The decoder-only transformer: config, named parameters, the training forward pass, sequence
 * scoring for the learner, and the incremental (KV-cache) decoding entry points.
 *
 * Architecture: token + learned position embeddings → nLayers × [pre-norm causal multi-head
 * attention, pre-norm ReLU MLP] → final layer norm → (a) untied linear head to the vocabulary,
 * (b) linear value head (one scalar per position, for PPO). ReLU rather than GELU: XNNPACK fuses
 * it into the matmul on wasm, and at this size the difference in quality is noise.
 */
import * as tf from '@tensorflow/tfjs-core';
import { makeConfig, validateConfig, type TransformerConfig } from './config.ts';
import { assignParams, disposeParams, initParams, type TransformerParams } from './params.ts';
import { forward, type ForwardOutput } from './forward.ts';
import { logProbsOf, type LogProbsOptions, type SequenceScores } from './log-probs.ts';
import { prefill, type PrefillResult } from './prefill.ts';
import { DecodeBatch } from './decode-batch.ts';
import type { SequenceCache } from './kv-cache.ts';

export class Transformer {
  readonly config: TransformerConfig;
  readonly params: TransformerParams;

  constructor(config: TransformerConfig, options: { readonly seed?: number } = {}) {
    validateConfig(config);
    this.config = config;
    this.params = initParams(config, options.seed ?? 0);
  }

  /** A model with the default shape (config.ts) for a vocabulary of `vocabSize`. */
  static create(vocabSize: number, overrides: Partial<TransformerConfig> = {}, seed = 0): Transformer {
    return new Transformer(makeConfig(vocabSize, overrides), { seed });
  }

  get parameterCount(): number {
    return Object.values(this.params).reduce((a, v) => a + v.size, 0);
  }

  /** Training forward pass: `tokens` int32 [B, T] → logits [B, T, V], values [B, T]. */
  forward(tokens: tf.Tensor2D): ForwardOutput {
    return forward(this.params, this.config, tokens);
  }

  /** Per-token log-probs, entropies and values aligned on the token they choose (log-probs.ts). */
  logProbsOf(tokens: tf.Tensor2D, options: LogProbsOptions = {}): SequenceScores {
    return logProbsOf(this.params, this.config, tokens, options);
  }

  /** Appends `tokens[i]` to sequence i (cache undefined = empty); see prefill.ts. */
  prefill(caches: readonly (SequenceCache | undefined)[], tokens: readonly (readonly number[])[]): Promise<PrefillResult> {
    return prefill(this.params, this.config, caches, tokens);
  }

  /** A lockstep decoding batch over the given caches (decode-batch.ts). */
  openDecode(entries: ReadonlyArray<{ readonly key: string; readonly cache: SequenceCache }>): DecodeBatch {
    return new DecodeBatch(this.params, this.config, entries);
  }

  /** The variables themselves, by name (read them; do not dispose them). */
  getWeights(): Readonly<Record<string, tf.Tensor>> {
    return this.params;
  }

  /** Copies weights in by name; names and shapes must match exactly. */
  setWeights(tensors: Readonly<Record<string, tf.Tensor>>): void {
    assignParams(this.params, tensors);
  }

  dispose(): void {
    disposeParams(this.params);
  }
}
