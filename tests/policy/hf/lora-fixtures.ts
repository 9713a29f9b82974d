/** Shared by the LoRA tests (issue 36): peft's fixtures, a next-token loss, the base weights. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import * as tf from '@tensorflow/tfjs-core';

import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { FIXTURES } from './fixtures.ts';

/** The peft adapters scripts/hf/make-lora-fixtures.py wrote. */
export const LORA_FIXTURES = ['qwen2-tiny-r4', 'qwen3-tiny-qv-rslora'] as const;

export interface LoraReference {
  readonly adapter: string;
  readonly base: string;
  readonly vocabSize: number;
  readonly logits: { readonly file: string; readonly inputs: number[][] };
  /** Largest |logit change| the adapter makes, as peft measured it. */
  readonly largestChangeFromBase: number;
}

export function loraDir(name: string): string {
  return path.join(FIXTURES, 'lora', name);
}

export function readLoraReference(name: string): LoraReference {
  return JSON.parse(readFileSync(path.join(loraDir(name), 'reference.json'), 'utf8')) as LoraReference;
}

/** Float32 logits laid out sequence after sequence, [length × vocab] each. */
export function splitLogits(bytes: Uint8Array, inputs: readonly (readonly number[])[], vocab: number): Float32Array[] {
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const out: Float32Array[] = [];
  let offset = 0;
  for (const ids of inputs) {
    out.push(all.subarray(offset, offset + ids.length * vocab));
    offset += ids.length * vocab;
  }
  if (offset !== all.length) throw new Error(`logits hold ${all.length} floats, expected ${offset}`);
  return out;
}

export function readLoraLogits(name: string): Float32Array[] {
  const ref = readLoraReference(name);
  return splitLogits(readFileSync(path.join(loraDir(name), ref.logits.file)), ref.logits.inputs, ref.vocabSize);
}

/** One sequence's logits [length × vocab]. */
export function logitsOf(model: HfCausalLm, ids: readonly number[]): Float32Array {
  return tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);
}

/** Mean next-token cross-entropy of one sequence (one-hot, so no gather gradient is needed). */
export function nextTokenLoss(model: HfCausalLm, ids: readonly number[]): tf.Scalar {
  return tf.tidy(() => {
    const logits = model.forward(leftPad([ids.slice(0, -1)])).logits;
    const logProbs = tf.logSoftmax(tf.squeeze(logits, [0]));
    const targets = tf.oneHot(tf.tensor1d(ids.slice(1), 'int32'), model.config.vocabSize);
    return tf.neg(tf.mean(tf.sum(tf.mul(logProbs, targets), 1))) as tf.Scalar;
  });
}

/** Copies of every base weight tensor's values, to check them bit for bit later. */
export function snapshotBaseWeights(model: HfCausalLm): Float32Array[] {
  const w = model.weights;
  const all: tf.Tensor[] = [w.lmHead, w.finalNorm];
  if (w.embedTokens !== undefined) all.push(w.embedTokens);
  for (const l of w.layers) {
    all.push(l.inputNorm, l.postAttentionNorm);
    for (const lin of [l.attention.q, l.attention.k, l.attention.v, l.attention.o, l.mlp.gate, l.mlp.up, l.mlp.down]) {
      all.push(lin.weight);
      if (lin.bias !== undefined) all.push(lin.bias);
    }
    if (l.attention.qNorm !== undefined) all.push(l.attention.qNorm);
    if (l.attention.kNorm !== undefined) all.push(l.attention.kNorm);
  }
  return all.map((t) => Float32Array.from(t.dataSync() as Float32Array));
}

export function bitIdentical(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
