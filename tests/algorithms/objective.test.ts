import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { LOSS_TERMS, objective, readScalars } from '../../algorithms/objective.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

// One row, T = 3: agent, observation, agent. logp == old (ratio 1) so the policy term is −mean(A).
//   A = [0.5, 9 (observation), 1.5] → lossPolicy = −(0.5 + 1.5)/2 = −1
//   ref − logp = [−0.5, 7, 0.5] → k3 = (0.106531 + 0.148721)/2 = 0.127626 → lossKl = 1e-3 · 0.127626
//   logits uniform over V = 4 → entropy = log 4 = 1.386294 → lossEntropy = −1e-3 · 1.386294
//   no critic → lossValue = 0
//   loss = −1 + 0.000127626 − 0.001386294 = −1.001258668
function inputs() {
  return {
    logProbs: tf.tensor2d([[-1, -1, -1]]),
    oldLogProbs: tf.tensor2d([[-1, -1, -1]]),
    advantages: tf.tensor2d([[0.5, 9, 1.5]]),
    mask: tf.tensor2d([[1, 0, 1]]),
    refLogProbs: tf.tensor2d([[-1.5, 6, -0.5]]),
    logits: tf.zeros([1, 3, 4]),
  };
}

describe('objective', () => {
  it("combines the terms with the paper's coefficients (KL 1e-3 k3, entropy 1e-3)", () => {
    const x = inputs();
    const terms = objective(x);
    const s = readScalars(terms);
    expect(s.lossPolicy).toBeCloseTo(-1, 6);
    expect(s.kl).toBeCloseTo(0.127626, 5);
    expect(s.lossKl).toBeCloseTo(0.000127626, 8);
    expect(s.entropy).toBeCloseTo(Math.log(4), 5);
    expect(s.lossEntropy).toBeCloseTo(-0.001386294, 8);
    expect(s.lossValue).toBe(0);
    expect(s.loss).toBeCloseTo(-1.001258668, 6);
    expect(s.loss).toBeCloseTo(LOSS_TERMS.reduce((a, k) => a + (s[k] as number), 0), 6);
    expect(s.clipFraction).toBe(0);
    expect(s.approxKl).toBe(0);
    tf.dispose([x, terms]);
  });

  it('adds the weighted value loss for PPO', () => {
    // values 1, old 0, returns 1 on both agent tokens: clipped to 0.5 → (0.5 − 1)² = 0.25;
    // lossValue = valueCoef · 0.5 · 0.25 = 0.5 · 0.125 = 0.0625.
    const x = { ...inputs(), values: tf.ones([1, 3]), oldValues: tf.zeros([1, 3]), returns: tf.ones([1, 3]) };
    const terms = objective(x, { klCoef: 0, entropyCoef: 0 });
    const s = readScalars(terms);
    expect(s.lossValue).toBeCloseTo(0.0625, 6);
    expect(s.valueClipFraction).toBeCloseTo(1, 6);
    expect(s.lossKl).toBe(0);
    expect(s.lossEntropy).toBe(0);
    expect(s.loss).toBeCloseTo(-1 + 0.0625, 6);
    tf.dispose([x, terms]);
  });

  it('always has the same loss* keys, zeros for terms that are off', () => {
    const { refLogProbs, logits, ...bare } = inputs();
    const terms = objective(bare, { klCoef: 0, entropyCoef: 0 });
    expect(Object.keys(terms).filter((k) => k.startsWith('loss')).sort()).toEqual(['loss', ...LOSS_TERMS].sort());
    expect(terms.entropy).toBeUndefined();
    tf.dispose([refLogProbs, logits, bare, terms]);
  });

  it('names the missing input when a coefficient needs it', () => {
    const { refLogProbs, logits, ...bare } = inputs();
    expect(() => objective(bare)).toThrow(expect.objectContaining({ code: 'ALGO_MISSING_INPUT' }));
    expect(() => objective({ ...bare, refLogProbs })).toThrow(/entropyCoef/);
    tf.dispose([refLogProbs, logits, bare]);
  });

  it('differentiates through every term', () => {
    const x = inputs();
    const lp = tf.variable(x.logProbs);
    const { value, grads } = tf.variableGrads(() => objective({ ...x, logProbs: lp }).loss, [lp]);
    const g = Array.from((grads[lp.name] as tf.Tensor).dataSync());
    // Policy: −A/N at ratio 1 → −0.25, 0, −0.75; k3: d/dlogp [e^x − x − 1] = (1 − e^x), x = ref − logp,
    // times 1e-3/2: token 0 x = −0.5 → (1 − 0.606531)·5e-4 = 0.000196735; token 2 x = 0.5 → −0.000324361.
    expect(g[0]).toBeCloseTo(-0.25 + 0.000196735, 6);
    expect(g[1]).toBeCloseTo(0, 9); // observation token
    expect(g[2]).toBeCloseTo(-0.75 - 0.000324361, 6);
    tf.dispose([x, lp, value, grads]);
  });
});
