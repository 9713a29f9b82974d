import * as tf from '@tensorflow/tfjs-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { policyLoss } from '../../algorithms/policy-loss.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

// Two rows, T = 4, ε = 0.2 (ratio clipped to [0.8, 1.2]).
//   row 0: A = +1, ratios 1.5, 0.5, 1.1, then padding (mask 0, log-ratio 5: must be ignored)
//   row 1: A = −1, ratios 1.5, 0.5, an observation (mask 0, log-ratio −5), 1.1
// Per-token loss max(−A·r, −A·clip(r)):
//   A=+1 r=1.5: max(−1.5, −1.2) = −1.2  clipped (above 1+ε: no further gain)
//   A=+1 r=0.5: max(−0.5, −0.8) = −0.5  not clipped (pessimistic: the worse, unclipped term)
//   A=+1 r=1.1: −1.1                     inside the interval
//   A=−1 r=1.5: max( 1.5,  1.2) =  1.5   not clipped (pessimistic)
//   A=−1 r=0.5: max( 0.5,  0.8) =  0.8   clipped (below 1−ε: no further gain)
//   A=−1 r=1.1:  1.1                     inside
// lossPolicy = (−1.2 − 0.5 − 1.1 + 1.5 + 0.8 + 1.1)/6 = 0.6/6 = 0.1
// clipFraction = 2/6; approxKl = mean(−log r) = −(ln1.5 + ln0.5 + ln1.1)/3 = 0.064124
const L = Math.log;
const logRatio = [
  [L(1.5), L(0.5), L(1.1), 5],
  [L(1.5), L(0.5), -5, L(1.1)],
];
const maskRows = [
  [1, 1, 1, 0],
  [1, 1, 0, 1],
];

let oldLogProbs: tf.Tensor2D, logProbs: tf.Variable, advantages: tf.Tensor2D, mask: tf.Tensor2D;
beforeEach(() => {
  oldLogProbs = tf.tensor2d([
    [-1, -2, -0.5, -3],
    [-0.7, -1.1, -2, -0.3],
  ]);
  logProbs = tf.variable(tf.tidy(() => tf.add(oldLogProbs, tf.tensor2d(logRatio))));
  advantages = tf.tensor2d([
    [1, 1, 1, 1],
    [-1, -1, -1, -1],
  ]);
  mask = tf.tensor2d(maskRows);
});
afterEach(() => tf.dispose([oldLogProbs, logProbs, advantages, mask]));

const scalar = (t: tf.Tensor) => t.dataSync()[0] as number;

describe('policyLoss', () => {
  it('clips at both sides of the ratio for positive and negative advantages', () => {
    const terms = policyLoss(logProbs, oldLogProbs, advantages, mask);
    expect(scalar(terms.lossPolicy)).toBeCloseTo(0.1, 5);
    expect(scalar(terms.clipFraction)).toBeCloseTo(2 / 6, 6);
    expect(scalar(terms.approxKl)).toBeCloseTo(0.064124, 5);
    tf.dispose(terms);
  });

  it('passes no gradient through clipped tokens and −A·r/N through the others', () => {
    // d(−A·r)/d logp = −A·r; token-mean divides by N = 6; clipped and masked tokens get 0.
    //   row 0: [0 (clipped), −0.5/6, −1.1/6, 0 (pad)]    row 1: [1.5/6, 0 (clipped), 0 (obs), 1.1/6]
    const f = () => policyLoss(logProbs, oldLogProbs, advantages, mask).lossPolicy;
    const { grads, value } = tf.variableGrads(f, [logProbs]);
    const g = grads[logProbs.name] as tf.Tensor;
    const expected = [0, -0.5 / 6, -1.1 / 6, 0, 1.5 / 6, 0, 0, 1.1 / 6];
    Array.from(g.dataSync()).forEach((x, i) => expect(x).toBeCloseTo(expected[i] as number, 5));
    tf.dispose([value, g]);
  });

  it('uses a separate upper ε (clip-higher)', () => {
    // ε_high = 0.6 → interval [0.8, 1.6]: row 0's r = 1.5 is no longer clipped, its loss −1.5.
    // lossPolicy = (−1.5 − 0.5 − 1.1 + 1.5 + 0.8 + 1.1)/6 = 0.3/6 = 0.05; clipFraction 1/6.
    const terms = policyLoss(logProbs, oldLogProbs, advantages, mask, { clipRatioHigh: 0.6 });
    expect(scalar(terms.lossPolicy)).toBeCloseTo(0.05, 5);
    expect(scalar(terms.clipFraction)).toBeCloseTo(1 / 6, 6);
    tf.dispose(terms);
  });

  it('bounds negative-advantage losses with the optional dual clip', () => {
    // A = −1, r = 5: max(5, 1.2) = 5 without dual clip; min(5, −A·c = 3) = 3 with c = 3.
    // A = +1, r = 5: −1.2 either way (dual clip only touches A < 0).
    const lp = tf.tensor2d([[L(5), L(5)]]);
    const old = tf.zeros([1, 2]);
    const adv = tf.tensor2d([[-1, 1]]);
    const m = tf.ones([1, 2]);
    const plain = policyLoss(lp, old, adv, m);
    const dual = policyLoss(lp, old, adv, m, { clipRatioC: 3 });
    expect(scalar(plain.lossPolicy)).toBeCloseTo((5 - 1.2) / 2, 5);
    expect(scalar(dual.lossPolicy)).toBeCloseTo((3 - 1.2) / 2, 5);
    expect(() => policyLoss(lp, old, adv, m, { clipRatioC: 1 })).toThrow(RangeError);
    tf.dispose([lp, old, adv, m, plain, dual]);
  });

  it('is the plain policy gradient −mean(A) at ratio 1', () => {
    // logp == old: r = 1 everywhere, loss = −(1+1+1 −1−1−1)/6 = 0, nothing clipped, approxKl 0.
    const terms = policyLoss(oldLogProbs, oldLogProbs, advantages, mask);
    expect(scalar(terms.lossPolicy)).toBeCloseTo(0, 6);
    expect(scalar(terms.clipFraction)).toBe(0);
    expect(scalar(terms.approxKl)).toBeCloseTo(0, 6);
    tf.dispose(terms);
  });
});
