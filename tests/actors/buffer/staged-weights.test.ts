// Issue 37: publishing in process must not change the weights under a running collection. The
// run model's `publish` snapshots the learner's weights; the agent decodes with them only when
// the producer applies them (between steps), whatever the learner did in between.
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { transformerRunModel } from '../../../actors/training/transformer-run-model.ts';
import { getEnv } from '../../../envs/index.ts';
import { freshModels } from '../../../learner/run-models.ts';
import { resolveConfig } from '../../../learner/training-config.ts';
import { selectBackend } from '../../../policy/backend.ts';
import { tokenizer } from '../learner-episodes.ts';

const values = (params: Readonly<Record<string, tf.Tensor>>) => Object.fromEntries(Object.entries(params).map(([name, t]) => [name, Array.from(t.dataSync())]));

describe('staged weights (transformer run model)', () => {
  beforeAll(async () => {
    await selectBackend('cpu');
  });

  it('the agent gets the weights as they were at publish, applied later, and the learner may train meanwhile', () => {
    const config = resolveConfig('babyai', { steps: 2, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 } });
    const models = freshModels(tokenizer, config);
    const run = transformerRunModel(getEnv('babyai'), models, config, undefined, undefined);
    // The learner moves on from its initial weights, then publishes version 1.
    for (const v of Object.values(models.model.params)) v.assign(tf.add(v, 0.5));
    const published = values(models.model.getWeights());
    const staged = run.publish(1);
    expect(run.policy.version).toBe(0);
    // The learner trains on before the producer's next step starts.
    for (const v of Object.values(models.model.params)) v.assign(tf.add(v, 1));
    expect(values(models.agentModel.getWeights())).not.toEqual(published);
    staged.apply();
    expect(run.policy.version).toBe(1);
    expect(values(models.agentModel.getWeights())).toEqual(published);
    expect(values(models.agentModel.getWeights())).not.toEqual(values(models.model.getWeights()));
    run.dispose();
    models.dispose();
  });

  it('frees a snapshot that is replaced before being applied', () => {
    const config = resolveConfig('babyai', { steps: 2, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 } });
    const models = freshModels(tokenizer, config);
    const run = transformerRunModel(getEnv('babyai'), models, config, undefined, undefined);
    const before = tf.memory().numTensors;
    const staged = run.publish(1);
    expect(tf.memory().numTensors).toBeGreaterThan(before);
    staged.discard?.();
    expect(tf.memory().numTensors).toBe(before);
    run.dispose();
    models.dispose();
  });
});
