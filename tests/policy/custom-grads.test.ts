import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { linear } from '../../policy/transformer/ops/linear.ts';
import { layerNorm, opsLayerNorm } from '../../policy/transformer/ops/layer-norm.ts';
import { embed } from '../../policy/transformer/ops/embedding.ts';
import { tokenLogProbsAndEntropy } from '../../policy/transformer/ops/token-log-probs.ts';
import { attentionCore, genericAttention } from '../../policy/transformer/ops/attention-core.ts';
import { causalMask } from '../../policy/transformer/attention.ts';

/** Gradients of Σ f(inputs) ⊙ R for a fixed random R, for each input. */
function gradsOf(f: (...xs: tf.Tensor[]) => tf.Tensor, inputs: tf.Tensor[], seed: number): Float32Array[] {
  return tf.tidy(() => {
    const shape = f(...inputs).shape;
    const r = tf.randomNormal(shape, 0, 1, 'float32', seed);
    const g = tf.grads((...xs: tf.Tensor[]) => tf.sum(tf.mul(f(...xs), r)));
    return g(inputs).map((t) => t.dataSync() as Float32Array);
  });
}

function expectClose(a: Float32Array[], b: Float32Array[], tol: number): void {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => {
    const y = b[i]!;
    let m = 0;
    let scale = 1e-6;
    for (let j = 0; j < x.length; j++) {
      m = Math.max(m, Math.abs(x[j]! - y[j]!));
      scale = Math.max(scale, Math.abs(y[j]!));
    }
    expect(m / scale).toBeLessThan(tol);
  });
}

const rnd = (shape: number[], seed: number): tf.Tensor => tf.randomNormal(shape, 0, 1, 'float32', seed);

describe('custom-gradient ops match autodiff of the plain maths (cpu)', () => {
  beforeAll(async () => {
    await selectBackend('cpu');
  });

  it('linear and relu-linear', () => {
    const inputs = [rnd([7, 5], 1), rnd([5, 4], 2), rnd([4], 3)];
    for (const act of ['linear', 'relu'] as const) {
      const ours = gradsOf((x, w, b) => linear(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D, act), inputs, 4);
      const ref = gradsOf((x, w, b) => {
        const y = tf.add(tf.matMul(x as tf.Tensor2D, w as tf.Tensor2D), b!);
        return act === 'relu' ? tf.relu(y) : y;
      }, inputs, 4);
      expectClose(ours, ref, 1e-5);
    }
  });

  it('layer norm (JS kernels and tf-ops versions)', () => {
    const inputs = [rnd([6, 8], 5), rnd([8], 6), rnd([8], 7)];
    const ref = gradsOf((x, g, b) => {
      const { mean, variance } = tf.moments(x!, -1, true);
      return tf.add(tf.mul(tf.div(tf.sub(x!, mean), tf.sqrt(tf.add(variance, 1e-5))), g!), b!);
    }, inputs, 8);
    for (const op of [layerNorm, opsLayerNorm]) {
      expectClose(gradsOf((x, g, b) => op(x as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D), inputs, 8), ref, 1e-4);
    }
  });

  it('embedding (duplicate ids accumulate)', () => {
    const ids = tf.tensor1d([1, 3, 1, 0, 3, 3], 'int32');
    const ours = gradsOf((t) => embed(t as tf.Tensor2D, ids), [rnd([5, 4], 9)], 10);
    const ref = gradsOf((t) => tf.matMul(tf.cast(tf.oneHot(ids, 5), 'float32'), t as tf.Tensor2D), [rnd([5, 4], 9)], 10);
    expectClose(ours, ref, 1e-6);
  });

  it('token log-probs and entropy', () => {
    const targets = tf.tensor1d([2, 0, 6, 6], 'int32');
    const inputs = [tf.mul(rnd([4, 7], 14), 3)];
    const ours = gradsOf((z) => tokenLogProbsAndEntropy(z as tf.Tensor2D, targets), inputs, 15);
    const ref = gradsOf((z) => {
      const logp = tf.logSoftmax(z as tf.Tensor2D);
      const picked = tf.sum(tf.mul(logp, tf.oneHot(targets, 7)), -1);
      const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1));
      return tf.stack([picked, entropy], 1);
    }, inputs, 15);
    expectClose(ours, ref, 1e-5);
  });

  it('attention core (head-copy kernels + hand-written backward) vs plain ops', () => {
    const shape = { batch: 2, time: 5, heads: 3, headDim: 4 };
    const mask = causalMask(5);
    const inputs = [rnd([10, 36], 16)];
    const ours = gradsOf((x) => attentionCore(x as tf.Tensor2D, shape, mask), inputs, 17);
    const ref = gradsOf((x) => genericAttention(x as tf.Tensor2D, shape, mask), inputs, 17);
    expectClose(ours, ref, 1e-4);
    const out = tf.tidy(() => tf.max(tf.abs(tf.sub(attentionCore(inputs[0] as tf.Tensor2D, shape, mask), genericAttention(inputs[0] as tf.Tensor2D, shape, mask)))).dataSync()[0]!);
    expect(out).toBeLessThan(1e-5);
  });

  it('attention core matches central finite differences', () => {
    const shape = { batch: 1, time: 3, heads: 2, headDim: 2 };
    const mask = causalMask(3);
    const x0 = Array.from(rnd([3, 12], 18).dataSync());
    const r = rnd([3, 4], 19);
    const loss = (vals: number[]): number => tf.tidy(() => tf.sum(tf.mul(attentionCore(tf.tensor2d(vals, [3, 12]), shape, mask), r)).dataSync()[0]!);
    const [analytic] = gradsOf((x) => attentionCore(x as tf.Tensor2D, shape, mask), [tf.tensor2d(x0, [3, 12])], 19);
    const eps = 1e-2;
    for (const i of [0, 5, 13, 22, 35]) {
      const up = [...x0];
      const down = [...x0];
      up[i]! += eps;
      down[i]! -= eps;
      expect(analytic![i]!).toBeCloseTo((loss(up) - loss(down)) / (2 * eps), 2);
    }
  });
});
