import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { byLength } from '../../learner/by-length.ts';
import { chunkedGrads, combineParts, lengthChunks, pickFields } from '../../learner/chunked-grads.ts';
import { padRows } from '../../learner/minibatch.ts';
import { scoreRows } from '../../learner/score.ts';
import { minibatchGrads } from '../../learner/update.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels } from '../../learner/run-models.ts';
import { expectSameGradients } from './same-gradients.ts';
import { selectBackend } from '../../policy/backend.ts';
import { tokenizer } from '../actors/learner-episodes.ts';

/** Padded positions plus `overhead` per chunk. */
const cost = (lengths: number[], chunks: number[][], overhead: number): number =>
  chunks.reduce((a, c) => a + c.length * Math.max(...c.map((i) => lengths[i]!)) + overhead, 0);

/** The cheapest split of the length order into contiguous runs, by trying all 2^(n-1). */
function bruteForce(lengths: number[], overhead: number): number {
  const order = byLength(lengths);
  let best = Infinity;
  for (let cuts = 0; cuts < 1 << (order.length - 1); cuts++) {
    const chunks: number[][] = [[]];
    order.forEach((i, k) => {
      if (k > 0 && (cuts >> (k - 1)) & 1) chunks.push([]);
      chunks[chunks.length - 1]!.push(i);
    });
    best = Math.min(best, cost(lengths, chunks, overhead));
  }
  return best;
}

describe('length chunks of a minibatch (chunked-grads.ts)', () => {
  it('lengthChunks is the cheapest split (against brute force) and covers every row once', () => {
    let seed = 3;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 40; trial++) {
      const lengths = Array.from({ length: 1 + (trial % 8) }, () => 5 + Math.floor(rand() * 120));
      const overhead = [0, 16, 96, 400][trial % 4]!;
      const chunks = lengthChunks(lengths, overhead);
      expect(chunks.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
      expect(cost(lengths, chunks, overhead)).toBe(bruteForce(lengths, overhead));
    }
    expect(lengthChunks([50, 50, 50, 50])).toEqual([[0, 1, 2, 3]]); // equal lengths: one pass
    expect(lengthChunks([])).toEqual([]);
    expect(lengthChunks([6, 120, 7, 125, 8, 130], 96)).toEqual([[0, 2, 4], [1, 3, 5]]);
  });

  it('pickFields takes the rows asked for, in that order', () => {
    const f = { mask: [[1], [2], [3]], oldLogProbs: [[4], [5], [6]], advantages: [[7], [8], [9]], returns: [[0], [1], [2]] };
    expect(pickFields(f, [2, 0])).toEqual({ mask: [[3], [1]], oldLogProbs: [[6], [4]], advantages: [[9], [7]], returns: [[2], [0]] });
  });

  it('combineParts weights by trained tokens; a part with none counts for nothing', async () => {
    // Chosen, not left to tfjs's default (which prints its 'install tfjs-node' banner).
    await selectBackend('cpu');
    const v = tf.variable(tf.zeros([2]), true, 'chunk-test-v');
    const part = (g: number[], loss: number, maskTokens: number) => ({ grads: { [v.name]: tf.tensor1d(g) }, metrics: { loss }, maskTokens });
    const before = tf.memory().numTensors;
    const out = combineParts([v], [part([1, 2], 1, 3), part([5, 6], 2, 1), part([100, 100], 50, 0)]);
    expect(Array.from(out.grads[v.name]!.dataSync())).toEqual([0.75 * 1 + 0.25 * 5, 0.75 * 2 + 0.25 * 6]);
    expect(out.metrics['loss']).toBeCloseTo(1.25, 10);
    expect(out.maskTokens).toBe(4);
    tf.dispose(out.grads);
    expect(tf.memory().numTensors).toBe(before); // the parts' gradients were disposed
    v.dispose();
  });

  describe('on a model', () => {
    beforeAll(async () => {
      await selectBackend('wasm');
    });

    it('scoreRows groups rows by length but returns each row its own scores, in order', async () => {
      const config = resolveConfig('babyai', { steps: 1, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 } });
      const models = freshModels(tokenizer, config);
      const rows = [30, 5, 18, 9, 40].map((len, r) => ({ tokens: Array.from({ length: len }, (_, t) => 5 + ((r * 5 + t * 3) % 20)) }));
      const options = { temperature: 1, constrained: false, chunk: 2 };
      const grouped = await scoreRows(models.model, rows, options);
      for (const [r, row] of rows.entries()) {
        const alone = await scoreRows(models.model, [row], options);
        expect(grouped.logProbs[r]).toHaveLength(row.tokens.length);
        alone.logProbs[0]!.forEach((x, t) => expect(grouped.logProbs[r]![t]).toBeCloseTo(x, 5));
        alone.values[0]!.forEach((x, t) => expect(grouped.values[r]![t]).toBeCloseTo(x, 5));
      }
      models.dispose();
    });

    it('chunkedGrads over rows of very different lengths equals one padded pass', () => {
      const config = resolveConfig('babyai', { steps: 1, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 160, instructionCopy: true } });
      const models = freshModels(tokenizer, config);
      const lengths = [6, 120, 7, 125, 8, 130];
      expect(lengthChunks(lengths).length).toBeGreaterThan(1); // the case under test: several passes
      const rows = lengths.map((len, r) => ({ tokens: Array.from({ length: len }, (_, t) => 5 + ((r * 7 + t * 3) % 20)) }));
      const per = (f: (r: number, t: number) => number) => rows.map((row, r) => Float32Array.from(row.tokens, (_, t) => f(r, t)));
      const fields = {
        mask: per((r, t) => (t >= 2 && (t + r) % 3 !== 0 ? 1 : 0)),
        oldLogProbs: per((r, t) => -1 - 0.1 * ((r + t) % 3)),
        advantages: per((r) => (r % 2 === 0 ? 1 : -0.5)),
        refLogProbs: per((r, t) => -1.2 + 0.05 * ((r * t) % 4)),
      };
      const whole = minibatchGrads(models.model, models.optimizer.variables, padRows(rows), fields, config);
      const chunked = chunkedGrads(models.model, models.optimizer.variables, rows, fields, config);
      expectSameGradients(whole, chunked, models.optimizer.variables);
      tf.dispose([whole.grads, chunked.grads]);
      models.dispose();
    });
  });
});
