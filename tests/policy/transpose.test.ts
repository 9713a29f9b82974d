import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { blockCopy, transpose2d, transposeCopy } from '../../policy/transformer/ops/transpose.ts';

const ramp = (n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => i + 1);

describe('transposing copies (transpose.ts)', () => {
  it('transposeCopy writes a strided block transposed, with rows not a multiple of 8', () => {
    // A 11 × 3 block at offset 2 of rows 5 wide, into rows 13 wide at offset 1, scaled by 2.
    const src = ramp(2 + 11 * 5);
    const dst = new Float32Array(1 + 3 * 13);
    transposeCopy(src, 2, 5, dst, 1, 13, 11, 3, 2);
    for (let r = 0; r < 11; r++) for (let c = 0; c < 3; c++) expect(dst[1 + c * 13 + r]).toBe(2 * src[2 + r * 5 + c]!);
    expect(dst[0]).toBe(0);
    expect(dst[1 + 11]).toBe(0); // past the 11 rows of column 0
  });

  it('blockCopy copies a strided block, with columns not a multiple of 4', () => {
    const src = ramp(40);
    const dst = new Float32Array(30);
    blockCopy(src, 1, 8, dst, 3, 9, 3, 7, 0.5);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 7; c++) expect(dst[3 + r * 9 + c]).toBe(0.5 * src[1 + r * 8 + c]!);
    expect(dst[3 + 7]).toBe(0);
  });

  for (const backend of ['cpu', 'wasm'] as const) {
    it(`transpose2d equals tf.transpose on ${backend} for odd and even shapes`, async () => {
      await selectBackend(backend);
      for (const [r, c] of [[1, 1], [7, 5], [16, 9], [24, 128]] as const) {
        const x = tf.randomNormal([r, c], 0, 1, 'float32', r * 100 + c) as tf.Tensor2D;
        const ours = transpose2d(x);
        expect(ours.shape).toEqual([c, r]);
        expect(Array.from(ours.dataSync())).toEqual(Array.from(tf.transpose(x).dataSync()));
        tf.dispose([x, ours]);
      }
    });
  }
});
