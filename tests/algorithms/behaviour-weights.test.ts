/**
 * Issue 37 (asynchronous training): the decoupled PPO objective with truncated behaviour weights,
 * against a hand computation.
 */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { behaviourWeights } from '../../algorithms/behaviour-weights.ts';
import { objective } from '../../algorithms/objective.ts';
import { policyLoss } from '../../algorithms/policy-loss.ts';
import { selectBackend } from '../../policy/backend.ts';

await selectBackend('cpu');

// One row, T = 4, ε = 0.2, cap = 2; token 3 is an observation (mask 0, wild values: ignored).
//   t0: A = +1, π_behav 0.2, π_prox 0.3  → w = 1.5;           π_θ 0.33  → r = 1.1 (inside)
//       loss = 1.5 · −1.1 = −1.65;  d/dlogπ_θ = w · (−A·r) = −1.65
//   t1: A = +1, π_behav 0.1, π_prox 0.4  → w = 4, cut to 2;   π_θ 0.6   → r = 1.5 (clipped at 1.2)
//       loss = 2 · max(−1.5, −1.2) = −2.4;  gradient 0 (the clipped term wins)
//   t2: A = −1, π_behav 0.5, π_prox 0.25 → w = 0.5;           π_θ 0.225 → r = 0.9 (inside)
//       loss = 0.5 · 0.9 = 0.45;  d/dlogπ_θ = 0.5 · 0.9 = 0.45
// lossPolicy = (−1.65 − 2.4 + 0.45) / 3 = −1.2; gradient [−0.55, 0, 0.15, 0] (÷ 3 agent tokens).
// mean w = (1.5 + 2 + 0.5) / 3 = 4/3, one token of three truncated.
const L = Math.log;
const behav = [L(0.2), L(0.1), L(0.5), -30];
const prox = [L(0.3), L(0.4), L(0.25), 0];
const theta = [L(0.33), L(0.6), L(0.225), 5];
const adv = [1, 1, -1, 7];
const maskRow = [1, 1, 1, 0];
const clip = { clipRatio: 0.2 };
const CAP = 2;

const scalar = (t: tf.Tensor) => t.dataSync()[0] as number;

/** The decoupled loss and its gradient with respect to log π_θ, given the weights. */
function lossAndGrad(weights: ArrayLike<number> | undefined, old = prox) {
  const logProbs = tf.variable(tf.tensor2d([theta]));
  const oldLogProbs = tf.tensor2d([old]);
  const advantages = tf.tensor2d([adv]);
  const mask = tf.tensor2d([maskRow]);
  const w = weights ? tf.tensor2d(Float32Array.from(weights), [1, 4]) : undefined;
  const f = () => policyLoss(logProbs, oldLogProbs, advantages, mask, clip, w).lossPolicy;
  const { value, grads } = tf.variableGrads(f, [logProbs]);
  const out = { loss: scalar(value), grad: Array.from(grads[logProbs.name]!.dataSync()) };
  tf.dispose([logProbs, oldLogProbs, advantages, mask, value, ...Object.values(grads), ...(w ? [w] : [])]);
  return out;
}

describe('behaviourWeights', () => {
  it('is min(π_prox/π_behav, cap) on agent tokens and 0 off them, counting the truncated ones', () => {
    const b = behaviourWeights(prox, behav, maskRow, CAP);
    const [w0, w1, w2, w3] = Array.from(b.weights);
    expect(w0).toBeCloseTo(1.5, 6);
    expect(w1).toBe(2);
    expect(w2).toBeCloseTo(0.5, 6);
    expect(w3).toBe(0);
    expect(b.tokens).toBe(3);
    expect(b.truncated).toBe(1);
    expect(b.weightSum / b.tokens).toBeCloseTo(4 / 3, 6);
  });

  it('truncates at the cap and never below: every weight ≤ cap, and cap 1 cuts every weight above 1', () => {
    const logW = [-3, -0.5, 0, 0.4, 0.7, 2, 25];
    const zeros = logW.map(() => 0);
    const ones = logW.map(() => 1);
    const at2 = behaviourWeights(logW, zeros, ones, 2);
    expect(Array.from(at2.weights)).toEqual(logW.map((x) => Math.fround(Math.min(Math.exp(Math.min(x, 20)), 2))));
    expect(at2.truncated).toBe(3); // e^0.7 ≈ 2.01, e^2 and e^25 (clamped to e^20) exceed 2
    const at1 = behaviourWeights(logW, zeros, ones, 1);
    expect(Array.from(at1.weights).map((w) => w <= 1)).toEqual(ones.map(() => true));
    expect(at1.truncated).toBe(4);
  });

  it('rejects a cap below 1 and misaligned inputs, naming the field', () => {
    expect(() => behaviourWeights([0], [0], [1], 0.5)).toThrow(/importanceCap must be ≥ 1, got 0.5/);
    expect(() => behaviourWeights([0, 0], [0], [1, 1], 2)).toThrow(/behavLogProbs \(1\)/);
  });
});

describe('decoupled PPO loss (policyLoss with importance weights)', () => {
  it('matches the hand computation: loss −1.2 and gradient [−0.55, 0, 0.15, 0]', () => {
    const { weights } = behaviourWeights(prox, behav, maskRow, CAP);
    const { loss, grad } = lossAndGrad(weights);
    expect(loss).toBeCloseTo(-1.2, 5);
    expect(grad[0]).toBeCloseTo(-0.55, 5);
    expect(grad[1]).toBe(0);
    expect(grad[2]).toBeCloseTo(0.15, 5);
    expect(grad[3]).toBe(0);
    // Gradient descent raises log π_θ of the positive-advantage token and lowers the negative one.
    expect(grad[0]!).toBeLessThan(0);
    expect(grad[2]!).toBeGreaterThan(0);
  });

  it('with π_behav = π_prox (w = 1) reproduces the unweighted loss and gradient bit for bit', () => {
    const { weights, truncated } = behaviourWeights(prox, prox, maskRow, CAP);
    expect(Array.from(weights)).toEqual([1, 1, 1, 0]);
    expect(truncated).toBe(0);
    expect(lossAndGrad(weights)).toEqual(lossAndGrad(undefined));
  });

  it('differs from standard PPO on the stale log-probs: that clips around π_behav', () => {
    // Standard PPO with old = π_behav: t0 r = 1.65 (clipped, no gradient), t1 r = 6 (clipped),
    // t2 r = 0.45 with A < 0 (clipped): every token is outside the trust region, no gradient at all.
    const stale = lossAndGrad(undefined, behav);
    expect(stale.grad).toEqual([0, 0, 0, 0]);
    const { weights } = behaviourWeights(prox, behav, maskRow, CAP);
    expect(lossAndGrad(weights).grad.some((g) => g !== 0)).toBe(true);
  });

  it('objective() passes the weights to the policy term only', () => {
    const { weights } = behaviourWeights(prox, behav, maskRow, CAP);
    const t = (row: number[]) => tf.tensor2d([row]);
    const inputs = { logProbs: t(theta), oldLogProbs: t(prox), advantages: t(adv), mask: t(maskRow), refLogProbs: t(prox) };
    const w = tf.tensor2d(weights, [1, 4]);
    const terms = objective({ ...inputs, importanceWeights: w }, { ...clip, entropyCoef: 0 });
    const plain = objective(inputs, { ...clip, entropyCoef: 0 });
    expect(scalar(terms.lossPolicy)).toBeCloseTo(-1.2, 5);
    expect(scalar(terms.lossKl)).toBe(scalar(plain.lossKl));
    expect(scalar(terms.clipFraction)).toBeCloseTo(1 / 3, 6);
    expect(scalar(terms.loss)).toBeCloseTo(-1.2 + scalar(plain.lossKl), 5);
    tf.dispose([...Object.values(inputs), w, ...Object.values(terms), ...Object.values(plain)]);
  });
});
