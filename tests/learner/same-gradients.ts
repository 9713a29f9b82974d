import * as tf from '@tensorflow/tfjs-core';
import { expect } from 'vitest';
import type { MinibatchGrads } from '../../learner/update.ts';

/**
 * Expects `other` to carry the gradients and metrics of `whole` (one padded pass) up to float32
 * summation order, and the gradients to be real (not two zeros). Disposes neither.
 */
export function expectSameGradients(whole: MinibatchGrads, other: MinibatchGrads, variables: readonly tf.Variable[], atLeast = 1e-4): void {
  expect(other.maskTokens).toBe(whole.maskTokens);
  for (const k of Object.keys(whole.metrics)) expect(other.metrics[k], k).toBeCloseTo(whole.metrics[k]!, 5);
  let largest = 0;
  for (const v of variables) {
    const [diff, scale] = tf.tidy(() => [
      tf.max(tf.abs(tf.sub(whole.grads[v.name]!, other.grads[v.name]!))).dataSync()[0]!,
      tf.max(tf.abs(whole.grads[v.name]!)).dataSync()[0]!,
    ]);
    largest = Math.max(largest, scale);
    expect(diff, v.name).toBeLessThanOrEqual(1e-5 * Math.max(scale, 1e-3));
  }
  expect(largest).toBeGreaterThan(atLeast);
}
