import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { valueLoss } from '../../algorithms/value-loss.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

describe('valueLoss', () => {
  it('takes the pessimistic max of clipped and unclipped errors, 0.5 · token-mean', () => {
    // ε_v = 0.5. Three agent tokens and one observation (ignored):
    //   a: old 0, new 1,   G 1 → clip(1) = 0.5;  (1−1)² = 0,    (0.5−1)² = 0.25 → 0.25 (clipped)
    //   b: old 0, new 0.2, G 1 → clip = 0.2;     (0.2−1)² = 0.64, same        → 0.64
    //   c: old 1, new 2,   G 0 → clip = 1.5;     (2−0)² = 4,    (1.5−0)² = 2.25 → 4
    // lossValue = 0.5 · (0.25 + 0.64 + 4)/3 = 0.5 · 1.63 = 0.815; clip fraction 1/3.
    const values = tf.tensor2d([[1, 0.2, 2, 100]]);
    const oldValues = tf.tensor2d([[0, 0, 1, 0]]);
    const returns = tf.tensor2d([[1, 1, 0, 0]]);
    const m = tf.tensor2d([[1, 1, 1, 0]]);
    const { lossValue, valueClipFraction } = valueLoss(values, oldValues, returns, m);
    expect(lossValue.dataSync()[0]).toBeCloseTo(0.815, 5);
    expect(valueClipFraction.dataSync()[0]).toBeCloseTo(1 / 3, 6);
    tf.dispose([values, oldValues, returns, m, lossValue, valueClipFraction]);
  });
});
