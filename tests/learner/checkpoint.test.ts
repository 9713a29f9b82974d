import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import { resolveConfig, resumeConfig } from '../../learner/training-config.ts';
import { freshModels, loadModels, toCheckpoint, type RunModels } from '../../learner/run-models.ts';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { encodeWeights } from '../../policy/transformer/weights-io.ts';

const config = resolveConfig('babyai', { steps: 4, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 32 } });
const tokenizer = Tokenizer.fromCorpus(['go to the red ball', 'turn left'], { maxVocab: 128, minCount: 1 });
let dir: string;
let models: RunModels;

async function save(target: string, step = 3): Promise<string> {
  const data = await toCheckpoint(models, {
    step, policyVersion: step, curriculum: { completedSteps: step, horizon: 6 }, rng: { seed: 0, derivedFrom: 'seed and step' },
    config,
  });
  return writeCheckpoint(target, data);
}

beforeAll(async () => {
  await selectBackend('cpu');
  dir = mkdtempSync(path.join(tmpdir(), 'actorgym-ckpt-'));
  models = freshModels(tokenizer, config);
  // One Adam step, so the optimizer has moments to save.
  const grads = tf.variableGrads(() => tf.addN(models.optimizer.variables.map((v) => tf.sum(tf.square(v)))) as tf.Scalar, models.optimizer.variables);
  models.optimizer.apply(grads.grads);
  tf.dispose([grads.value, ...Object.values(grads.grads)]);
});
afterAll(() => {
  models.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('checkpoints (learner/checkpoint/)', () => {
  it('round-trips weights, reference, optimizer, tokenizer and state', async () => {
    const ckpt = await save(path.join(dir, 'run', 'checkpoint'));
    const { dir: found, data } = await readCheckpoint(path.join(dir, 'run'));
    expect(found).toBe(ckpt);
    expect(data.state).toMatchObject({ step: 3, policyVersion: 3, curriculum: { completedSteps: 3, horizon: 6 }, optimizer: { iterations: 1 } });
    const loaded = await loadModels(data, config, found);
    expect(await encodeWeights(loaded.model.getWeights())).toEqual(await encodeWeights(models.model.getWeights()));
    expect(await encodeWeights(loaded.reference.getWeights())).toEqual(await encodeWeights(models.reference.getWeights()));
    const [a, b] = [await loaded.optimizer.state(), await models.optimizer.state()];
    expect(a.iterations).toBe(b.iterations);
    expect(a.accBeta1).toBe(b.accBeta1);
    expect(await encodeWeights(a.moments)).toEqual(await encodeWeights(b.moments));
    tf.dispose([...Object.values(a.moments), ...Object.values(b.moments)]);
    expect(loaded.tokenizer.toJSON()).toEqual(tokenizer.toJSON());
    loaded.dispose();
  });

  it('replaces an existing checkpoint atomically, leaving no temporary or old directory', async () => {
    const target = path.join(dir, 'swap', 'checkpoint');
    await save(target, 1);
    await save(target, 2);
    expect((await readCheckpoint(target)).data.state.step).toBe(2);
    expect(existsSync(`${target}.old`)).toBe(false);
    expect(existsSync(`${target}.tmp-${process.pid}`)).toBe(false);
    // A crash between the two renames leaves only checkpoint.old: the reader finds it there.
    renameSync(target, `${target}.old`);
    expect((await readCheckpoint(path.dirname(target))).data.state.step).toBe(2);
  });

  describe('a missing or damaged checkpoint is a clear error naming the file', () => {
    let ckpt: string;
    beforeAll(async () => {
      ckpt = await save(path.join(dir, 'damaged', 'checkpoint'));
    });
    const fresh = async (name: string) => save(path.join(dir, name, 'checkpoint'));

    it('missing directory or manifest', async () => {
      await expect(readCheckpoint(path.join(dir, 'nowhere'))).rejects.toThrow(/CKPT_MISSING: no checkpoint at .*nowhere: the directory does not exist/);
      await expect(readCheckpoint(dir)).rejects.toThrow(/CKPT_MISSING: no checkpoint at .*expected .*manifest\.json/);
    });

    it('a manifest that is not JSON, or of another format version', async () => {
      const a = await fresh('bad-json');
      writeFileSync(path.join(a, 'manifest.json'), '{"format": "actorgym-checkpoint", ');
      await expect(readCheckpoint(a)).rejects.toThrow(/CKPT_CORRUPT: .*manifest\.json is not valid JSON/);
      const b = await fresh('bad-version');
      const manifest = JSON.parse(readFileSync(path.join(b, 'manifest.json'), 'utf8'));
      writeFileSync(path.join(b, 'manifest.json'), JSON.stringify({ ...manifest, version: 99 }));
      await expect(readCheckpoint(b)).rejects.toThrow(/CKPT_VERSION: .*manifest\.json has format version 99/);
    });

    it('truncated weights, a flipped byte, a missing file', async () => {
      const weights = path.join(ckpt, 'weights.bin');
      const size = readFileSync(weights).byteLength;
      truncateSync(weights, size - 100);
      await expect(readCheckpoint(ckpt)).rejects.toThrow(new RegExp(`CKPT_CORRUPT: .*weights\\.bin is truncated: ${size - 100} bytes, the manifest says ${size}`));
      const c = await fresh('flipped');
      const bytes = readFileSync(path.join(c, 'optimizer.bin'));
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
      writeFileSync(path.join(c, 'optimizer.bin'), bytes);
      await expect(readCheckpoint(c)).rejects.toThrow(/CKPT_CORRUPT: .*optimizer\.bin fails its checksum/);
      const d = await fresh('missing-file');
      rmSync(path.join(d, 'tokenizer.json'));
      await expect(readCheckpoint(d)).rejects.toThrow(/CKPT_CORRUPT: .*tokenizer\.json is missing/);
    });
  });

  it('unknown algorithm or schedule, and resuming with a different configuration, are clear errors', () => {
    expect(() => resolveConfig('babyai', { steps: 1, algo: 'dqn' })).toThrow(/unknown algorithm "dqn"; known: grpo, ppo, reinforce\+\+, rloo/);
    expect(() => resolveConfig('babyai', { steps: 1, schedule: 'linear:3' })).toThrow(/bad schedule "linear:3": expected "fixed:N" or "scaling/);
    expect(() => resolveConfig('babyai', { steps: 1, algo: 'grpo', groupSize: 1 })).toThrow(/grpo needs at least 2 rollouts per task/);
    expect(() => resumeConfig(config, 'babyai', { steps: 8, lr: 0.5 })).toThrow(/CKPT_INCOMPATIBLE: .*lr 0\.5 \(checkpoint: 0\.001\)/);
    expect(resumeConfig(config, 'babyai', { steps: 8, concurrency: 3 })).toMatchObject({ steps: 8, concurrency: 3, lr: config.lr });
  });
});
