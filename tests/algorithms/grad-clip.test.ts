import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { clipByGlobalNorm } from '../../algorithms/grad-clip.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

const globalNorm = (grads: tf.NamedTensorMap) =>
  Math.sqrt(Object.values(grads).reduce((a, g) => a + Array.from(g.dataSync()).reduce((s, x) => s + x * x, 0), 0));

describe('clipByGlobalNorm', () => {
  it('scales every gradient by maxNorm / norm when the global norm is larger', () => {
    // a = [3, 4], b = [[12]]: norm = sqrt(9 + 16 + 144) = 13; scale = 1/(13 + 1e-6).
    const grads = { a: tf.tensor1d([3, 4]), b: tf.tensor2d([[12]]) };
    const { grads: clipped, norm } = clipByGlobalNorm(grads, { maxNorm: 1 });
    expect(norm).toBeCloseTo(13, 5);
    expect(Array.from((clipped.a as tf.Tensor).dataSync())).toEqual([3 / 13, 4 / 13].map((x) => expect.closeTo(x, 6)));
    expect((clipped.b as tf.Tensor).shape).toEqual([1, 1]);
    expect(globalNorm(clipped)).toBeCloseTo(1, 5);
    tf.dispose([grads, clipped]);
  });

  it('leaves gradients below the max norm unchanged', () => {
    const grads = { a: tf.tensor1d([0.3, 0.4]) };
    const { grads: clipped, norm } = clipByGlobalNorm(grads, { maxNorm: 1 });
    expect(norm).toBeCloseTo(0.5, 6);
    expect(Array.from((clipped.a as tf.Tensor).dataSync())).toEqual([0.3, 0.4].map(Math.fround));
    tf.dispose([grads, clipped]);
  });

  it('returns norm 0 for no gradients', () => {
    expect(clipByGlobalNorm({})).toEqual({ grads: {}, norm: 0 });
  });
});
