import * as tf from '@tensorflow/tfjs-core';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { causalMask } from '../../policy/transformer/attention.ts';
import { genericAttention } from '../../policy/transformer/ops/attention-core.ts';
import { fusedAttention, fusedAttentionPacked, hasDataSection } from '../../policy/transformer/ops/fused-attention.ts';
import type { HeadShape } from '../../policy/transformer/ops/head-kernels.ts';

/** Output and input gradient of Σ attention(qkv) ⊙ R, as flat arrays. */
function run(f: (x: tf.Tensor2D) => tf.Tensor2D, qkv: tf.Tensor2D, seed: number): [Float32Array, Float32Array] {
  return tf.tidy(() => {
    const out = f(qkv);
    const r = tf.randomNormal(out.shape, 0, 1, 'float32', seed);
    const g = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(f(x as tf.Tensor2D), r)))(qkv);
    return [out.dataSync() as Float32Array, g.dataSync() as Float32Array];
  });
}

function maxRelError(a: Float32Array, b: Float32Array): number {
  let err = 0;
  let scale = 1e-6;
  for (let i = 0; i < a.length; i++) {
    err = Math.max(err, Math.abs(a[i]! - b[i]!));
    scale = Math.max(scale, Math.abs(b[i]!));
  }
  return err / scale;
}

describe('fused wasm attention (fused-attention.ts) against plain tf ops', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });

  const shapes: HeadShape[] = [
    { batch: 2, time: 13, heads: 3, headDim: 6 }, // T and dh not multiples of 8: padded tiles
    { batch: 3, time: 16, heads: 2, headDim: 8 },
    { batch: 1, time: 1, heads: 1, headDim: 4 },
    { batch: 2, time: 128, heads: 4, headDim: 32 }, // the reference model's shape
  ];
  for (const s of shapes) {
    it(`matches forward and gradient for B ${s.batch}, T ${s.time}, H ${s.heads}, dh ${s.headDim}`, () => {
      const qkv = tf.randomNormal([s.batch * s.time, 3 * s.heads * s.headDim], 0, 2, 'float32', s.time) as tf.Tensor2D;
      const mask = causalMask(s.time);
      const [out, grad] = run((x) => fusedAttention(x, s), qkv, 7);
      const [refOut, refGrad] = run((x) => genericAttention(x, s, mask), qkv, 7);
      expect(out.length).toBe(refOut.length);
      expect(grad.length).toBe(refGrad.length);
      expect(maxRelError(out, refOut)).toBeLessThan(1e-5);
      expect(maxRelError(grad, refGrad)).toBeLessThan(1e-4);
      tf.dispose([qkv, mask]);
    });
  }

  it('leaves no tensors behind across forward and backward', () => {
    const s = { batch: 2, time: 9, heads: 2, headDim: 4 };
    const qkv = tf.randomNormal([18, 24]) as tf.Tensor2D;
    run((x) => fusedAttention(x, s), qkv, 1);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) run((x) => fusedAttention(x, s), qkv, 1);
    expect(tf.memory().numTensors).toBe(before);
    qkv.dispose();
  });

  it('packed sequences of different lengths: each equals attention over that sequence alone', () => {
    const heads = 3;
    const headDim = 6;
    const lengths = [13, 1, 20, 8];
    const total = lengths.reduce((a, b) => a + b, 0);
    const qkv = tf.randomNormal([total, 3 * heads * headDim], 0, 2, 'float32', 11) as tf.Tensor2D;
    const before = tf.memory().numTensors;
    const out = fusedAttentionPacked(qkv, lengths, heads, headDim);
    expect(tf.memory().numTensors).toBe(before + 1);
    expect(out.shape).toEqual([total, heads * headDim]);
    let start = 0;
    for (const len of lengths) {
      const alone = tf.tidy(() => genericAttention(tf.slice(qkv, [start, 0], [len, -1]) as tf.Tensor2D, { batch: 1, time: len, heads, headDim }, causalMask(len)));
      const mine = tf.slice(out, [start, 0], [len, -1]);
      expect(maxRelError(mine.dataSync() as Float32Array, alone.dataSync() as Float32Array)).toBeLessThan(1e-5);
      tf.dispose([alone, mine]);
      start += len;
    }
    tf.dispose([qkv, out]);
  });

  it('packed: lengths that do not add up to the rows are an error', () => {
    const qkv = tf.zeros([10, 18]) as tf.Tensor2D;
    expect(() => fusedAttentionPacked(qkv, [4, 5], 3, 2)).toThrow(/lengths \[4, 5\] do not pack qkv \[10, 18\]/);
    expect(() => fusedAttentionPacked(qkv, [10, 0], 3, 2)).toThrow(/do not pack/);
    expect(() => fusedAttentionPacked(qkv, [10], 2, 2)).toThrow(/with 2 heads of 2/);
    qkv.dispose();
  });

  it('the committed module has no data segment (it would overwrite tfjs memory)', () => {
    const bytes = readFileSync(new URL('../../policy/transformer/ops/wasm/attention.wasm', import.meta.url));
    expect(hasDataSection(bytes)).toBe(false);
    // The check itself: a minimal module with an empty data section (id 11, size 1, count 0).
    const withData = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 11, 1, 0]);
    expect(hasDataSection(withData)).toBe(true);
  });
});
