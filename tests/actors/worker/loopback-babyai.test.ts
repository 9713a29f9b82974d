/**
 * Issue 37, end to end on loopback: a learner server's remote producer and one in-process worker
 * (its policy built from the welcome, the learner's weights loaded from the weights frame) make
 * on BabyAI the same trajectory groups — same episodes, same token ids and log-probs — as the
 * local producer with the same weights and seeds.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProducer } from '../../../actors/buffer/local-producer.ts';
import { buildTokenizer } from '../../../actors/training/tokenizer-corpus.ts';
import type { RunModel } from '../../../actors/training/run-model.ts';
import { transformerRunModel } from '../../../actors/training/transformer-run-model.ts';
import { namedTensors } from '../../../actors/training/named-weights.ts';
import { runSpecOf } from '../../../actors/worker/run-spec.ts';
import { runWorker } from '../../../actors/worker/run-worker.ts';
import { openWorkerPolicy } from '../../../actors/worker/worker-policy.ts';
import { getEnv } from '../../../envs/index.ts';
import { freshModels } from '../../../learner/run-models.ts';
import { resolveConfig } from '../../../learner/training-config.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';
import { selectBackend } from '../../../policy/backend.ts';
import { startLearnerServer, type LearnerServerHandle } from '../../../servers/learner-server/learner-server.ts';

const env = getEnv('babyai');
const config = resolveConfig('babyai', {
  steps: 2, tasksPerStep: 3, groupSize: 2, concurrency: 4, seed: 11, maxVocab: 200, corpusTasks: 4,
  model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 96 },
});
const WORK = { step: 1, horizon: 5, groups: [0, 1, 2] };
let learner: RunModel;
let server: LearnerServerHandle;
const stop = new AbortController();

beforeAll(async () => {
  await selectBackend('cpu');
  const tokenizer = await buildTokenizer(env, { seed: config.seed, tasks: config.corpusTasks, maxVocab: config.maxVocab });
  const models = freshModels(tokenizer, config);
  learner = transformerRunModel(env, models, config, undefined, undefined);
  // Weights no fresh model has, published as version 4: the worker can only match them by loading the frame.
  const exported = await learner.exportWeights(0);
  const moved = namedTensors({ version: 4, tensors: exported.tensors.map((t) => ({ ...t, data: t.data.map((v, i) => v * 1.5 + (i % 7) * 0.01) })) });
  models.model.setWeights(moved);
  tf.dispose(Object.values(moved));
  learner.publish(4).apply();
  server = await startLearnerServer({ port: 0, run: runSpecOf(config, tokenizer.toJSON()), weights: await learner.exportWeights(4), heartbeatMs: 0 });
}, 60_000);

afterAll(async () => {
  stop.abort();
  await server?.close();
  learner?.dispose();
});

/** What must match: everything but who produced it. */
const essence = (groups: readonly TrajectoryGroup[]) =>
  [...groups].sort((a, b) => a.index - b.index).map(({ producer: _producer, ...group }) => group);

describe('a learner server and one worker on loopback', () => {
  it('produce the groups the local producer makes with the same weights and seeds', async () => {
    const local: TrajectoryGroup[] = [];
    const producer = new LocalProducer({ env, policy: learner.policy, collect: { seed: config.seed, tasksPerStep: 3, groupSize: 2, concurrency: 4 } });
    await producer.produce(WORK, (g) => local.push(g), new AbortController().signal);

    const tensorsBefore = tf.memory().numTensors;
    const worker = runWorker({ learner: server.url, name: 'w1', env: 'babyai', open: openWorkerPolicy({ env, backend: 'cpu' }), signal: stop.signal });
    const remote: TrajectoryGroup[] = [];
    await server.producer.produce(WORK, (g) => remote.push(g), new AbortController().signal);

    expect(remote).toHaveLength(3);
    expect(remote.every((g) => g.producer === 'w1' && g.policyVersion === 4)).toBe(true);
    expect(local.every((g) => g.policyVersion === 4)).toBe(true);
    const tokens = (groups: readonly TrajectoryGroup[]) => essence(groups).flatMap((g) => g.episodes.map((e) => e.record?.trajectory.tokens.length ?? 0));
    expect(tokens(remote).every((n) => n > 0)).toBe(true);
    expect(essence(remote)).toEqual(JSON.parse(JSON.stringify(essence(local))));
    stop.abort();
    await worker;
    expect(tf.memory().numTensors).toBeLessThanOrEqual(tensorsBefore);
  }, 60_000);
});
