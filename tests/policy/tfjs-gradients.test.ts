// Issue 35: the package depends on @tensorflow/tfjs-core (not the full @tensorflow/tfjs), whose Node
// entry registers no gradients; policy/tfjs-runtime.ts registers them from policy/tfjs-gradients.js.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import '../../policy/tfjs-runtime.ts';
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { bundleTfjsGradients } from '../../scripts/build-tfjs-gradients.mjs';

const root = resolve(import.meta.dirname, '../..');

describe('tfjs-core with the package runtime registrations', () => {
  it('is what scripts/build-tfjs-gradients.mjs writes for the installed tfjs-core (regenerate after a bump)', () => {
    const committed = readFileSync(join(root, 'policy', 'tfjs-gradients.js'), 'utf8');
    expect(committed === (bundleTfjsGradients as () => string)()).toBe(true);
  });

  it('differentiates ops without selecting a backend (cpu is registered, gradients too)', () => {
    const x = tf.tensor1d([1, 2, 3]);
    const grad = tf.grad((v: tf.Tensor) => tf.sum(tf.div(tf.addN([v, v, tf.square(v)]), tf.scalar(2))))(x);
    expect(Array.from(grad.dataSync())).toEqual([2, 3, 4]);
    expect(tf.getBackend()).toBe('cpu');
    tf.dispose([x, grad]);
  });
});
