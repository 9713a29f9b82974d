/** Issue 37: weights by name to and from variables — a copy out, and a load that checks every name and shape before it assigns any. */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { assignNamedWeights, toNamedWeights } from '../../../actors/training/named-weights.ts';
import { selectBackend } from '../../../policy/backend.ts';

beforeAll(async () => {
  await selectBackend('cpu');
});

describe('named weights', () => {
  it('copies variables out and assigns them back by name', async () => {
    const a = tf.variable(tf.tensor2d([[1, 2], [3, 4]]), true, 'nw-a');
    const b = tf.variable(tf.tensor1d([5]), true, 'nw-b');
    const out = await toNamedWeights(3, [['a', a], ['b', b]]);
    expect(out.version).toBe(3);
    expect(out.tensors.map((t) => [t.name, t.shape, Array.from(t.data)])).toEqual([['a', [2, 2], [1, 2, 3, 4]], ['b', [1], [5]]]);
    out.tensors[0]!.data[0] = 9; // a copy: the variable is untouched
    expect(Array.from(await a.data())).toEqual([1, 2, 3, 4]);
    assignNamedWeights(new Map<string, tf.Variable>([['a', a], ['b', b]]), out);
    expect(Array.from(await a.data())).toEqual([9, 2, 3, 4]);
    tf.dispose([a, b]);
  });

  it('names the tensor that is missing, foreign or misshapen, and assigns nothing then', async () => {
    const a = tf.variable(tf.tensor1d([1, 2]), true, 'nw-c');
    const b = tf.variable(tf.tensor1d([3]), true, 'nw-d');
    const vars = new Map<string, tf.Variable>([['a', a], ['b', b]]);
    const ok = { name: 'a', shape: [2], data: new Float32Array([7, 7]) };
    expect(() => assignNamedWeights(vars, { version: 1, tensors: [ok] })).toThrow('weights of version 1: b is missing');
    expect(() => assignNamedWeights(vars, { version: 1, tensors: [ok, { name: 'b', shape: [1], data: new Float32Array(1) }, { name: 'z', shape: [1], data: new Float32Array(1) }] }))
      .toThrow('weights of version 1: z is not a weight of this policy');
    expect(() => assignNamedWeights(vars, { version: 2, tensors: [ok, { name: 'b', shape: [2], data: new Float32Array(2) }] }))
      .toThrow("weights of version 2: b is [2], the policy's [1]");
    expect(Array.from(await a.data())).toEqual([1, 2]);
    tf.dispose([a, b]);
  });
});
