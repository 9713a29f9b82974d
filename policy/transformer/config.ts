import { copyForms, type CopyForms } from './copy-forms.ts';

/** Shape of the decoder-only transformer. */
export interface TransformerConfig {
  /** Number of token ids (the tokenizer's vocabulary size). */
  readonly vocabSize: number;
  /** Width of the residual stream. */
  readonly dModel: number;
  readonly nLayers: number;
  /** Attention heads; must divide `dModel`. */
  readonly nHeads: number;
  /** Width of the feed-forward hidden layer. */
  readonly dFF: number;
  /** Longest sequence the model accepts (learned positional embeddings have this many rows). */
  readonly maxContext: number;
  /**
   * Output head tied to the token embedding (logits = h · tok_embᵀ + head.b, no head.w), as in
   * GPT-2. Why it is an option: copying a word from the goal into the action then needs one
   * shared alignment instead of a separately learned output column per word (docs/training-babyai.md).
   */
  readonly tiedEmbeddings?: boolean;
  /**
   * A learned gate adds one bonus to the logits of all the instruction's words (params copy.w,
   * copy.b; instruction-copy.ts): a bag-of-words copy from the instruction into the action.
   */
  readonly instructionCopy?: boolean;
  /**
   * The copy also marks the other forms of the instruction's words: with and without the leading
   * space, and two adjacent words joined ("pick up" → `pickup`) (copy-forms.ts). Needs
   * `instructionCopy` and `copyForms`, which `withCopyForms` derives from the tokenizer.
   */
  readonly copyWordForms?: boolean;
  /** The vocabulary's word forms (derived, not chosen: `withCopyForms`). */
  readonly copyForms?: CopyForms;
}

/**
 * Default size for a 2-core CPU on the WebAssembly backend: d 128, 2 layers, 4 heads, ff 512,
 * context 256 (0.56 M parameters with a 512-token vocabulary). Measured with
 * `npx tsx bench/transformer-step.ts --sweep` on a shared 2-core machine: it trains ~4,700
 * tokens/s at full context (forward + backward + Adam) and decodes ~6,500 tokens/s for a batch
 * of 64 episodes. Halving the width (d 64) trains only 1.5–2.3× faster — per-kernel overhead,
 * not arithmetic, weighs most there — for a third of the parameters; 4 layers train 1.2–1.9×
 * slower, d 192 × 3 layers 1.9–2.3× slower (two sweeps; the machine is shared). So a GRPO step
 * of 32 episodes × a few hundred tokens stays in seconds. The
 * context holds an instruction plus several BabyAI/TextCraft turns; longer episodes are
 * windowed (context-window.ts). The vocabulary size comes from the tokenizer.
 */
export const DEFAULT_TRANSFORMER_CONFIG: Omit<TransformerConfig, 'vocabSize'> = {
  dModel: 128,
  nLayers: 2,
  nHeads: 4,
  dFF: 512,
  maxContext: 256,
};

export function makeConfig(vocabSize: number, overrides: Partial<TransformerConfig> = {}): TransformerConfig {
  const config: TransformerConfig = { ...DEFAULT_TRANSFORMER_CONFIG, vocabSize, ...overrides };
  validateConfig(config);
  return config;
}

/** `overrides` plus the word forms of `vocab` when they ask for `copyWordForms`. */
export function withCopyForms(overrides: Partial<TransformerConfig>, vocab: readonly string[]): Partial<TransformerConfig> {
  return overrides.copyWordForms === true ? { ...overrides, copyForms: copyForms(vocab) } : overrides;
}

export function validateConfig(c: TransformerConfig): void {
  for (const [key, value] of Object.entries(c)) {
    if (key === 'copyForms') continue;
    if (key === 'tiedEmbeddings' || key === 'instructionCopy' || key === 'copyWordForms') {
      if (value !== undefined && typeof value !== 'boolean') throw new Error(`TransformerConfig.${key} must be a boolean, got ${String(value)}`);
      continue;
    }
    if (!Number.isInteger(value) || (value as number) <= 0) {
      throw new Error(`TransformerConfig.${key} must be a positive integer, got ${String(value)}`);
    }
  }
  if (c.copyWordForms === true && c.instructionCopy !== true) throw new Error('TransformerConfig.copyWordForms needs instructionCopy');
  if (c.copyWordForms === true && c.copyForms === undefined) throw new Error('TransformerConfig.copyWordForms needs copyForms (withCopyForms derives them from the tokenizer)');
  if (c.dModel % c.nHeads !== 0) {
    throw new Error(`TransformerConfig.dModel (${c.dModel}) must be divisible by nHeads (${c.nHeads})`);
  }
}

export const headDim = (c: TransformerConfig): number => c.dModel / c.nHeads;
