import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipByGlobalNorm } from '../../algorithms/grad-clip.ts';
import { entropyLoss } from '../../algorithms/entropy.ts';
import { klLoss } from '../../algorithms/kl.ts';
import { objective } from '../../algorithms/objective.ts';
import { policyLoss } from '../../algorithms/policy-loss.ts';
import { valueLoss } from '../../algorithms/value-loss.ts';
import { selectBackend } from '../../policy/backend.ts';

// cpu, chosen rather than left to tfjs's default (which also prints its "install tfjs-node" banner).
await selectBackend('cpu');

// Every loss must leave exactly its result tensors alive: run each 10 times inside tf.tidy and
// check the live tensor count is unchanged, and once outside a tidy and check the count grows by
// the number of returned tensors only.
const B = 2;
const T = 6;
const V = 5;
let x: Record<string, tf.Tensor>;

beforeAll(() => {
  x = {
    logProbs: tf.randomUniform([B, T], -3, 0, 'float32', 1),
    oldLogProbs: tf.randomUniform([B, T], -3, 0, 'float32', 2),
    refLogProbs: tf.randomUniform([B, T], -3, 0, 'float32', 3),
    advantages: tf.randomNormal([B, T], 0, 1, 'float32', 4),
    mask: tf.tensor2d([
      [0, 1, 1, 0, 1, 0],
      [1, 1, 0, 0, 1, 1],
    ]),
    logits: tf.randomNormal([B, T, V], 0, 1, 'float32', 5),
    values: tf.randomNormal([B, T], 0, 1, 'float32', 6),
    oldValues: tf.randomNormal([B, T], 0, 1, 'float32', 7),
    returns: tf.randomNormal([B, T], 0, 1, 'float32', 8),
  };
});
afterAll(() => tf.dispose(x));

function countTensors(c: tf.TensorContainer): number {
  if (c instanceof tf.Tensor) return 1;
  if (!c || typeof c !== 'object') return 0;
  return Object.values(c).reduce((n: number, v: tf.TensorContainer) => n + countTensors(v), 0);
}
const t = (name: string) => x[name] as tf.Tensor;
const losses: Record<string, () => tf.TensorContainer> = {
  policyLoss: () => policyLoss(t('logProbs'), t('oldLogProbs'), t('advantages'), t('mask'), { clipRatioC: 3 }),
  klLoss: () => klLoss(t('logProbs'), t('refLogProbs'), t('mask')),
  entropyLoss: () => entropyLoss(t('logits'), t('mask')),
  valueLoss: () => valueLoss(t('values'), t('oldValues'), t('returns'), t('mask')),
  objective: () => objective({ ...x } as never),
  clipByGlobalNorm: () => clipByGlobalNorm({ a: t('logProbs'), b: t('logits') }).grads,
};

describe('no tensor leaks', () => {
  for (const [name, run] of Object.entries(losses)) {
    it(`${name} keeps tf.memory().numTensors flat across a loop`, () => {
      const before = tf.memory().numTensors;
      for (let i = 0; i < 10; i++) tf.tidy(() => void run());
      expect(tf.memory().numTensors).toBe(before);
    });

    it(`${name} leaves only its results alive outside a tidy`, () => {
      const before = tf.memory().numTensors;
      const result = run();
      const returned = countTensors(result);
      expect(tf.memory().numTensors).toBe(before + returned);
      tf.dispose(result);
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('objective inside tf.variableGrads leaks nothing', () => {
    const lp = tf.variable(t('logProbs').clone());
    const before = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) {
      const { value, grads } = tf.variableGrads(() => objective({ ...x, logProbs: lp } as never).loss, [lp]);
      tf.dispose([value, grads]);
    }
    expect(tf.memory().numTensors).toBe(before);
    lp.dispose();
  });
});
