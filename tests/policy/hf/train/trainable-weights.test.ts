/**
 * Issue 36, item 5, full fine-tuning: every weight becomes one trainable variable named by its
 * transformers tensor name (tied models: one embedding variable); a snapshot in transformers'
 * layout written as safetensors loads back as the same model; assignWeights restores a snapshot
 * exactly and refuses a wrong one naming the tensor; a training step through hfSequenceScores
 * moves every weight on wasm (the embedding's gradient included).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../../policy/backend.ts';
import { loadHfModel } from '../../../../policy/hf/load-hf-model.ts';
import { writeSafetensors } from '../../../../policy/hf/safetensors/write-safetensors.ts';
import { expectedTensors } from '../../../../policy/hf/tensor-names.ts';
import { hfSequenceScores } from '../../../../policy/hf/train/sequence-scores.ts';
import { assignWeights, snapshotWeights, trainableWeights } from '../../../../policy/hf/train/trainable-weights.ts';
import { maxAbsDiff, modelDir, TINY_MODELS } from '../fixtures.ts';
import { logitsOf } from '../lora-fixtures.ts';
import { maskedNll, padRight, randomRows } from './reference-scores.ts';

const IDS = [5, 17, 3, 99, 42, 8, 1, 250];

describe('trainableWeights on wasm', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });

  for (const name of TINY_MODELS) {
    it(`${name}: one variable per transformers tensor, same logits, snapshot → safetensors → load round trip`, async () => {
      const { model } = await loadHfModel(modelDir(name));
      const trainable = trainableWeights(model, { namePrefix: `${name}/` });
      const dir = await mkdtemp(path.join(tmpdir(), 'hf-train-'));
      try {
        const expected = expectedTensors(model.config);
        expect([...trainable.variables.keys()].sort()).toEqual(expected.map((t) => t.name).sort());
        expect(model.config.tieWordEmbeddings).toBe(!expected.some((t) => t.name === 'lm_head.weight'));
        for (const [hfName, v] of trainable.variables) expect([v.name, v.trainable]).toEqual([`${name}/${hfName}`, true]);
        expect(maxAbsDiff(logitsOf(trainable.model, IDS), logitsOf(model, IDS))).toBe(0);

        const snapshot = snapshotWeights(trainable);
        for (const t of expected) expect(snapshot[t.name]!.shape, t.name).toEqual(t.shape);
        await writeSafetensors(path.join(dir, 'model.safetensors'), expected.map((t) => ({ name: t.name, shape: t.shape, data: snapshot[t.name]!.dataSync() as Float32Array })));
        await copyFile(path.join(modelDir(name), 'config.json'), path.join(dir, 'config.json'));
        tf.dispose(Object.values(snapshot));
        const reloaded = (await loadHfModel(dir)).model;
        expect(maxAbsDiff(logitsOf(reloaded, IDS), logitsOf(model, IDS))).toBe(0);
        reloaded.dispose();
      } finally {
        trainable.dispose();
        model.dispose();
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it('a training step moves every weight (embedding included); assignWeights restores a snapshot exactly', async () => {
    for (const name of ['qwen2-tiny', 'llama3-tiny']) {
      const { model } = await loadHfModel(modelDir(name));
      const trainable = trainableWeights(model, { namePrefix: `step-${name}/` });
      const optimizer = tf.train.sgd(0.5);
      try {
        const before = snapshotWeights(trainable);
        const batch = padRight(randomRows(model.config.vocabSize, [10, 6], 3));
        const tokens = tf.tensor2d(batch.tokens, [batch.batch, batch.length], 'int32');
        const mask = tf.tensor2d(batch.mask, [batch.batch, batch.length]);
        const loss = optimizer.minimize(() => maskedNll(hfSequenceScores(trainable.model, tokens, { temperature: 1, positionChunk: 4, attentionBlock: 3, recompute: 'layers' }), mask), true, [...trainable.variables.values()]);
        const after = snapshotWeights(trainable);
        for (const hfName of trainable.variables.keys()) {
          expect(maxAbsDiff(after[hfName]!.dataSync(), before[hfName]!.dataSync()), `${name} ${hfName}`).toBeGreaterThan(0);
        }
        assignWeights(trainable, before);
        expect(maxAbsDiff(logitsOf(trainable.model, IDS), logitsOf(model, IDS))).toBe(0);

        const [first] = Object.keys(before);
        expect(() => assignWeights(trainable, { ...before, 'model.layers.9.mlp.up_proj.weight': before[first!]! })).toThrow(/model\.layers\.9\.mlp\.up_proj\.weight.*not a weight/);
        const { ['model.norm.weight']: _dropped, ...missing } = before;
        expect(() => assignWeights(trainable, missing)).toThrow(/"model\.norm\.weight"\] is missing/);
        expect(() => assignWeights(trainable, { ...before, 'model.norm.weight': tf.zeros([3]) })).toThrow(/"model\.norm\.weight"\] is \[3\], expected \[32\]/);
        tf.dispose([loss!, tokens, mask, ...Object.values(before), ...Object.values(after)]);
      } finally {
        optimizer.dispose();
        trainable.dispose();
        model.dispose();
      }
    }
  });
});
