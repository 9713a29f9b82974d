/**
 * Left-pads token sequences into one prefill batch. Why left: every row's last real token then
 * sits in the last column, so one slice gives all next-token logits and each decode step
 * appends a single column for every row. Positions count real tokens only (pads get 0), as
 * transformers derives position_ids from the attention mask, so a row's numbers do not depend
 * on how much padding its batch needed.
 */
import type { ForwardBatch } from './causal-lm.ts';

export function leftPad(sequences: readonly (readonly number[])[], padId = 0): ForwardBatch {
  if (sequences.length === 0) throw new Error('leftPad: no sequences');
  const length = Math.max(...sequences.map((s) => s.length));
  if (length === 0) throw new Error('leftPad: every sequence is empty');
  const batch = sequences.length;
  const tokens = new Int32Array(batch * length).fill(padId);
  const positions = new Int32Array(batch * length);
  const keyMask = new Uint8Array(batch * length);
  for (const [b, seq] of sequences.entries()) {
    if (seq.length === 0) throw new Error(`leftPad: sequence ${b} is empty`);
    const pad = length - seq.length;
    for (let i = 0; i < seq.length; i++) {
      tokens[b * length + pad + i] = seq[i]!;
      positions[b * length + pad + i] = i;
      keyMask[b * length + pad + i] = 1;
    }
  }
  return { tokens, batch, length, positions, keyMask };
}
