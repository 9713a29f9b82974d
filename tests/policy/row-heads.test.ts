import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { rowHeads } from '../../policy/transformer/ops/head-kernels.ts';

describe('rowHeads (the KV-cache copy of prefill)', () => {
  for (const backend of ['cpu', 'wasm'] as const) {
    it(`on ${backend}, equals slicing each sequence's first positions and transposing heads out`, async () => {
      await selectBackend(backend);
      const shape = { batch: 3, time: 5, heads: 2, headDim: 3 };
      const width = 3 * shape.heads * shape.headDim;
      const x = tf.randomNormal([shape.batch * shape.time, width], 0, 1, 'float32', 4) as tf.Tensor2D;
      const lengths = [5, 1, 3];
      for (const offset of [shape.heads * shape.headDim, 2 * shape.heads * shape.headDim]) {
        const ours = rowHeads(x, shape, offset, lengths);
        expect(ours.map((t) => t.shape)).toEqual(lengths.map((len) => [2, len, 3]));
        lengths.forEach((len, b) => {
          const expected = tf.tidy(() => tf.transpose(
            tf.reshape(tf.slice(x, [b * shape.time, offset], [len, shape.heads * shape.headDim]), [len, shape.heads, shape.headDim]), [1, 0, 2]));
          expect(Array.from(ours[b]!.dataSync())).toEqual(Array.from(expected.dataSync()));
          expected.dispose();
        });
        tf.dispose(ours);
      }
      x.dispose();
    });
  }

  it('reads packed sequences from their starts', async () => {
    await selectBackend('wasm');
    const shape = { batch: 2, time: 4, heads: 2, headDim: 2 };
    const x = tf.tensor2d(Array.from({ length: 7 * 4 }, (_, i) => i), [7, 4]); // rows 0-2 then 3-6
    const [a, b] = rowHeads(x, shape, 0, [3, 4], [0, 3]);
    expect(Array.from(a!.dataSync())).toEqual([0, 1, 4, 5, 8, 9, 2, 3, 6, 7, 10, 11]);
    expect(b!.shape).toEqual([2, 4, 2]);
    expect(Array.from(b!.dataSync()).slice(0, 4)).toEqual([12, 13, 16, 17]);
    expect(() => rowHeads(x, shape, 0, [3, 4], [0, 4])).toThrow(/inside 7 rows/);
    tf.dispose([x, a!, b!]);
  });

  it('rejects lengths that do not fit the batch', async () => {
    await selectBackend('cpu');
    const x = tf.zeros([4, 6]) as tf.Tensor2D;
    const shape = { batch: 2, time: 2, heads: 1, headDim: 2 };
    expect(() => rowHeads(x, shape, 0, [1])).toThrow(/2 lengths in \[1, 2\]/);
    expect(() => rowHeads(x, shape, 0, [1, 3])).toThrow(/got \[1, 3\]/);
    expect(() => rowHeads(x, shape, 0, [0, 2])).toThrow(/got \[0, 2\]/);
    x.dispose();
  });
});
