import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainStep } from '../../learner/train-step.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels, toCheckpoint } from '../../learner/run-models.ts';
import { selectBackend } from '../../policy/backend.ts';
import type { Algorithm } from '../../algorithms/index.ts';
import { enc, episodes, tokenizer } from '../actors/learner-episodes.ts';

describe('learner memory (tf.memory().numTensors across learner steps)', () => {
  beforeAll(async () => {
    await selectBackend('cpu');
  });

  const cases: [Algorithm, boolean][] = [['grpo', false], ['ppo', false], ['grpo', true]];
  for (const [algo, instructionCopy] of cases) {
    it(`${algo}${instructionCopy ? ' with the instruction copy' : ''}: live tensors stay flat after the first step (Adam's moments) — training and checkpointing`, async () => {
      const model = { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64, instructionCopy };
      const config = resolveConfig('babyai', { steps: 4, algo, epochs: 2, minibatch: 3, model });
      const models = freshModels(tokenizer, config);
      const counts: number[] = [];
      for (let step = 1; step <= 4; step++) {
        const m = await trainStep({
          model: models.model, reference: models.reference, optimizer: models.optimizer, args: config,
          episodes, seed: 0, step, dropUninformative: true, encode: enc,
        });
        expect(m.updates).toBeGreaterThan(0);
        expect(Number.isFinite(m.loss)).toBe(true);
        await toCheckpoint(models, { step, policyVersion: step, curriculum: { completedSteps: step, horizon: 3 }, rng: { seed: 0, derivedFrom: 'seed and step' }, config: {} });
        counts.push(tf.memory().numTensors);
      }
      expect(counts[1]).toBe(counts[0]);
      expect(counts[2]).toBe(counts[0]);
      expect(counts[3]).toBe(counts[0]);
      models.dispose();
    });
  }
});
