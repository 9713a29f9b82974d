import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { klLoss, klPerToken } from '../../algorithms/kl.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

const scalar = (t: tf.Tensor) => t.dataSync()[0] as number;

describe('klLoss', () => {
  it('is zero when logp == ref', () => {
    const lp = tf.tensor2d([[-1, -2, -3]]);
    const m = tf.ones([1, 3]);
    const { kl, klK1 } = klLoss(lp, lp, m);
    expect(scalar(kl)).toBe(0);
    expect(scalar(klK1)).toBe(0);
    tf.dispose([lp, m, kl, klK1]);
  });

  it('k3 is positive otherwise, token-mean over agent tokens', () => {
    // logp − ref = +0.5, −0.5 on the agent tokens, and 3 on an observation (ignored).
    // k3 with x = ref − logp:  x = −0.5: e^−0.5 + 0.5 − 1 = 0.106531
    //                          x = +0.5: e^0.5 − 0.5 − 1 = 0.148721
    // mean = 0.127626. k1 = mean(logp − ref) = (0.5 − 0.5)/2 = 0, while k3 stays > 0.
    const lp = tf.tensor2d([[-1.5, -2.5, 0]]);
    const ref = tf.tensor2d([[-2, -2, -3]]);
    const m = tf.tensor2d([[1, 1, 0]]);
    const { kl, klK1 } = klLoss(lp, ref, m);
    expect(scalar(kl)).toBeCloseTo(0.127626, 5);
    expect(scalar(klK1)).toBeCloseTo(0, 6);
    const k1 = klLoss(lp, ref, m, 'k1');
    expect(scalar(k1.kl)).toBeCloseTo(0, 6);
    tf.dispose([lp, ref, m, kl, klK1, k1]);
  });

  it('clamps as verl does: x to ±20 before exp, the value to ±10 after', () => {
    // x = ref − logp = −30 → clamped to −20: e^−20 + 20 − 1 ≈ 19 → clamped to 10.
    // x = +30 → clamped to 20: e^20 − 21 ≈ 4.85e8 → clamped to 10 (finite, no overflow).
    const lp = tf.tensor1d([0, -30]);
    const ref = tf.tensor1d([-30, 0]);
    const k3 = klPerToken(lp, ref, 'k3');
    expect(Array.from(k3.dataSync())).toEqual([10, 10]);
    tf.dispose([lp, ref, k3]);
  });
});
