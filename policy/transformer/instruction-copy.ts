/**
 * Instruction copy (`TransformerConfig.instructionCopy`): a learned gate that adds, at every
 * position, the same bonus to the logit of every word of the instruction,
 *
 *   logits_t[v] += g_t · [v ∈ instruction],   g_t = h_t · copy.w + copy.b,
 *
 * a bag-of-words form of the copy distribution of pointer-generator networks (See et al. 2017).
 * Why: an instruction-following action mostly repeats the instruction's words ("go to the red
 * ball" → `go to red ball 1`). Learned through attention, that copy needs the query, key, value
 * and output maps to line up from a sparse reward; on BabyAI's level mix a from-scratch policy
 * learned a colour prior ("pick red") instead (docs/training-babyai.md). With the gate, raising
 * the instruction's words at a slot is one direction in h.
 *
 * The instruction is the sequence head (policy/context-window.ts): the tokens after <bos> up to
 * the first special token (<act> or <obs>).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TransformerConfig } from './config.ts';
import { param, type TransformerParams } from './params.ts';
import { linear } from './ops/linear.ts';
import { BOS_ID, isSpecialId } from '../special-tokens.ts';
import { bagIds } from './copy-forms.ts';

/**
 * A sequence's instruction as far as it has been read. The bonus applies from the position of the
 * special token that closes the instruction on (so every position sees only words at or before
 * it, and the model stays causal); before that, and in sequences that do not open with <bos>, it
 * is 0.
 */
export interface InstructionState {
  readonly ids: readonly number[];
  readonly closed: boolean;
}

/** A sequence that does not open with <bos>: an empty bag, so no bonus. */
export const NO_INSTRUCTION: InstructionState = { ids: [], closed: true };

/**
 * The state after reading `tokens[start..end)`, continuing `prev` (a sequence's earlier tokens;
 * undefined when `tokens[start]` is the sequence's first token).
 */
export function readInstruction(tokens: ArrayLike<number>, start = 0, end = tokens.length, prev?: InstructionState): InstructionState {
  let i = start;
  let state = prev;
  if (state === undefined) {
    if (end <= start || tokens[start] !== BOS_ID) return NO_INSTRUCTION;
    state = { ids: [], closed: false };
    i += 1;
  }
  if (state.closed) return state;
  const ids = [...state.ids];
  for (; i < end; i++) {
    const id = tokens[i] as number;
    if (isSpecialId(id)) return { ids, closed: true };
    ids.push(id);
  }
  return { ids, closed: false };
}

/**
 * Bags [R, V]: 1 on the words of each row's instruction once it is closed (and on their other
 * forms with `copyWordForms`), else all 0.
 */
export function bagTensor(states: readonly InstructionState[], c: TransformerConfig): tf.Tensor2D {
  const { vocabSize } = c;
  const forms = c.copyWordForms === true ? c.copyForms : undefined;
  const bags = new Float32Array(states.length * vocabSize);
  states.forEach((state, r) => {
    if (!state.closed) return;
    for (const id of bagIds(state, forms)) if (id >= 0 && id < vocabSize) bags[r * vocabSize + id] = 1;
  });
  return tf.tensor2d(bags, [states.length, vocabSize]);
}

/**
 * What the training paths need of a right-padded batch `tokens` [B, T]: each row's bag [B, V]
 * and where the bonus applies [B, T] (1 from the closing special token on).
 */
export function batchCopyInputs(tokens: tf.Tensor2D, c: TransformerConfig): { bags: tf.Tensor2D; active: tf.Tensor2D } {
  const [b, t] = tokens.shape;
  const ids = tokens.dataSync();
  const active = new Float32Array(b * t);
  const states: InstructionState[] = [];
  for (let r = 0; r < b; r++) {
    const state = readInstruction(ids, r * t, (r + 1) * t);
    states.push(state);
    // The closing token sits right after <bos> and the instruction's words.
    if (state.closed) active.fill(1, r * t + 1 + state.ids.length, (r + 1) * t);
  }
  return { bags: bagTensor(states, c), active: tf.tensor2d(active, [b, t]) };
}

/**
 * `logits` [B·T, V] plus the gated bonus; `h` [B·T, d] are the final hidden states, `bags` [B, V]
 * and `active` [B, T] come from `batchCopyInputs`. Differentiable.
 */
export function withInstructionCopy(
  p: TransformerParams, c: TransformerConfig, h: tf.Tensor2D, logits: tf.Tensor2D, inputs: { bags: tf.Tensor2D; active: tf.Tensor2D },
): tf.Tensor2D {
  const [b, t] = inputs.active.shape;
  const gate = tf.mul(tf.reshape(linear(h, param(p, 'copy.w'), param(p, 'copy.b')), [b, t, 1]), tf.reshape(inputs.active, [b, t, 1]));
  const bonus = tf.mul(gate, tf.reshape(inputs.bags, [b, 1, c.vocabSize]));
  return tf.reshape(tf.add(tf.reshape(logits, [b, t, c.vocabSize]), bonus), [b * t, c.vocabSize]) as tf.Tensor2D;
}
