import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { entropyFromLogits, entropyLoss } from '../../algorithms/entropy.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

describe('entropy', () => {
  it('of a uniform distribution is log V', () => {
    // Any constant logit row over V = 8 entries: H = log 8 = 2.079442.
    const logits = tf.fill([2, 3, 8], 3.7);
    const m = tf.tensor2d([
      [1, 0, 1],
      [0, 1, 1],
    ]);
    const { entropy } = entropyLoss(logits, m);
    expect(entropy.dataSync()[0]).toBeCloseTo(Math.log(8), 5);
    tf.dispose([logits, m, entropy]);
  });

  it('is stable for huge and for −Infinity logits', () => {
    // [1000, 0, 0]: essentially one-hot → 0, not NaN (no overflow in exp).
    // [0, 0, −∞]: two equal entries, one impossible → log 2 = 0.693147, not NaN.
    const logits = tf.tensor3d([[[1000, 0, 0]], [[0, 0, -Infinity]]]);
    const h = entropyFromLogits(logits);
    const [a, b] = Array.from(h.dataSync());
    expect(a).toBeCloseTo(0, 6);
    expect(b).toBeCloseTo(Math.log(2), 6);
    tf.dispose([logits, h]);
  });

  it('has a finite gradient with a −Infinity logit', () => {
    const logits = tf.tensor3d([[[0.3, -0.2, -Infinity]]]);
    const m = tf.ones([1, 1]);
    const g = tf.grad((x: tf.Tensor) => entropyLoss(x, m).entropy)(logits);
    expect(Array.from(g.dataSync()).every(Number.isFinite)).toBe(true);
    tf.dispose([logits, m, g]);
  });

  it('is the masked token-mean over positions', () => {
    // Position entropies: uniform over 4 → log 4; one-hot-ish → 0. Mask picks both: (log 4 + 0)/2.
    const logits = tf.tensor3d([[[0, 0, 0, 0], [50, 0, 0, 0], [0, 0, 0, 0]]]);
    const m = tf.tensor2d([[1, 1, 0]]);
    const { entropy } = entropyLoss(logits, m);
    expect(entropy.dataSync()[0]).toBeCloseTo(Math.log(4) / 2, 5);
    tf.dispose([logits, m, entropy]);
  });
});
