import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataParallelGrads } from '../../learner/data-parallel.ts';
import { padRows } from '../../learner/minibatch.ts';
import { scoreRows } from '../../learner/score.ts';
import { trainStep } from '../../learner/train-step.ts';
import { minibatchGrads } from '../../learner/update.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels } from '../../learner/run-models.ts';
import { expectSameGradients } from './same-gradients.ts';
import type { Algorithm } from '../../algorithms/index.ts';
import { selectBackend } from '../../policy/backend.ts';
import { enc, episodes, tokenizer } from '../actors/learner-episodes.ts';

// The learner's second core (learner/data-parallel.ts): half of every minibatch's
// gradients from a worker thread must give the update one thread gives.
const workers: DataParallelGrads[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

async function startFor(models: ReturnType<typeof freshModels>): Promise<DataParallelGrads> {
  const w = await DataParallelGrads.start({ backend: 'wasm', config: models.model.config, names: models.optimizer.params.map(([n]) => n) });
  workers.push(w);
  return w;
}

describe('data-parallel learner steps', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });

  const cases: [Algorithm, boolean][] = [['grpo', false], ['ppo', true]];
  for (const [algo, instructionCopy] of cases) {
    it(`${algo}${instructionCopy ? ' with the instruction copy' : ''}: a minibatch's gradients and metrics, and the rows' scores, equal one pass's`, async () => {
      const config = resolveConfig('babyai', { steps: 1, algo, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64, instructionCopy } });
      const models = freshModels(tokenizer, config);
      const parallel = await startFor(models);
      // Five rows of different lengths (so the halves pad differently), masks and advantages that vary.
      const rows = Array.from({ length: 5 }, (_, r) => ({ tokens: Array.from({ length: 6 + 3 * r }, (_, t) => 5 + ((r * 7 + t * 3) % 20)) }));
      const per = (f: (r: number, t: number) => number) => rows.map((row, r) => Float32Array.from(row.tokens, (_, t) => f(r, t)));
      const mask = per((r, t) => (t >= 3 && (t + r) % 2 === 0 ? 1 : 0));
      const fields = {
        mask,
        oldLogProbs: per((r, t) => -1 - 0.1 * ((r + t) % 3)),
        advantages: per((r) => (r % 2 === 0 ? 1 : -0.5)),
        refLogProbs: per((r, t) => -1.2 + 0.05 * ((r * t) % 4)),
        ...(algo === 'ppo' ? { oldValues: per((r, t) => 0.1 * ((r + t) % 5)), returns: per((r) => r % 2) } : {}),
      };
      const whole = minibatchGrads(models.model, models.optimizer.variables, padRows(rows), fields, config);
      const split = await parallel.grads(models.model, models.optimizer.variables, rows, fields, config);
      expectSameGradients(whole, split, models.optimizer.variables, 1e-3);
      tf.dispose([whole.grads, split.grads]);
      // A one-row minibatch cannot be split: it is computed here, the same as one pass.
      const first = { mask: fields.mask.slice(0, 1), oldLogProbs: fields.oldLogProbs.slice(0, 1), advantages: fields.advantages.slice(0, 1), refLogProbs: fields.refLogProbs.slice(0, 1) };
      const lone = await parallel.grads(models.model, models.optimizer.variables, rows.slice(0, 1), first, { ...config, algo: 'grpo' });
      const alone = minibatchGrads(models.model, models.optimizer.variables, padRows(rows.slice(0, 1)), first, { ...config, algo: 'grpo' });
      expect(lone.metrics['loss']).toBe(alone.metrics['loss']);
      tf.dispose([lone.grads, alone.grads]);
      // Scoring (no gradients): the worker's half equals a one-thread pass, row for row.
      const options = { temperature: 1, constrained: false };
      const [one, two] = [await scoreRows(models.model, rows, options), await parallel.scoreRows(models.model, rows, options)];
      expect(two.logProbs).toHaveLength(rows.length);
      rows.forEach((_, r) => {
        one.logProbs[r]!.forEach((x, t) => expect(two.logProbs[r]![t]).toBeCloseTo(x, 5));
        one.values[r]!.forEach((x, t) => expect(two.values[r]![t]).toBeCloseTo(x, 5));
      });
      models.dispose();
    });

    it(`${algo}${instructionCopy ? ' with the instruction copy' : ''}: learner steps give one thread's metrics, and leave no tensor behind`, async () => {
      const model = { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64, instructionCopy };
      const config = resolveConfig('babyai', { steps: 3, algo, epochs: 2, minibatch: 3, model });
      const one = freshModels(tokenizer, config);
      const two = freshModels(tokenizer, config);
      const parallel = await startFor(two);
      const counts: number[] = [];
      for (let step = 1; step <= 3; step++) {
        const input = { args: config, episodes, seed: 0, step, dropUninformative: true, encode: enc };
        const a = await trainStep({ ...input, model: one.model, reference: one.reference, optimizer: one.optimizer });
        const b = await trainStep({ ...input, model: two.model, reference: two.reference, optimizer: two.optimizer, parallel });
        expect(b.updates).toBe(a.updates);
        // Adam divides by the gradients' own size, so float32 rounding in the halves' sum can
        // move a near-zero coordinate by up to lr: the metrics, not every weight, are compared.
        for (const k of ['loss', 'lossPolicy', 'lossKl', 'entropy', 'gradNorm']) expect(b[k], k).toBeCloseTo(a[k]!, 3);
        counts.push(tf.memory().numTensors);
      }
      expect(counts[2]).toBe(counts[1]);
      one.dispose();
      two.dispose();
    });
  }

  it('a worker that cannot start is a clear error', async () => {
    const models = freshModels(tokenizer, resolveConfig('babyai', { steps: 1, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 } }));
    await expect(DataParallelGrads.start({ backend: 'wasm', config: models.model.config, names: ['no-such-param'] }))
      .rejects.toThrow(/learner worker failed to start: the worker's model has no parameter no-such-param/);
    models.dispose();
  });
});
