// Issue 37: a Hugging Face run trained asynchronously. The agent decodes with its own snapshot of
// the trained weights (LoRA: the adapters; full: every weight), so when the learner updates and
// publishes during a collection the agent's weights stay as they were; once the producer applies
// the published version, the agent decodes exactly as the learner did at publish. Synchronous runs
// share the learner's model (no copy).
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { hfRunModel } from '../../actors/training/hf/hf-run-model.ts';
import type { RecordingPolicyAgent } from '../../actors/training/recording-agent.ts';
import { getEnv } from '../../envs/index.ts';
import { trainedVariables } from '../../learner/hf/hf-agent-weights.ts';
import { openHfModels, type HfRunModels } from '../../learner/hf/hf-run-models.ts';
import { resolveConfig, type TrainingConfig } from '../../learner/training-config.ts';
import { selectBackend } from '../../policy/backend.ts';
import type { HfPolicy } from '../../policy/hf/agent/index.ts';
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';
import { hfScoring } from '../../learner/hf/hf-scoring.ts';
import { scoreRows } from '../../learner/score.ts';

const MODEL = path.resolve('tests/fixtures/hf/qwen2-tiny-chat');
const ASYNC = { maxStaleness: 1, importanceCap: 2 } as const;
const TOKENS = [5, 17, 42, 9, 100, 3, 7, 8];

/** The next-token logits of a fixed sequence: what the model decodes with. */
function logits(model: HfCausalLm): number[] {
  const out = model.forward({
    tokens: Int32Array.from(TOKENS), batch: 1, length: TOKENS.length,
    positions: Int32Array.from(TOKENS.map((_, i) => i)), keyMask: new Uint8Array(TOKENS.length).fill(1),
  }, undefined, 'last');
  const values = Array.from(out.logits.dataSync());
  tf.dispose([out.logits, ...out.kv.flatMap((p) => [p.k, p.v])]);
  return values;
}

/** A learner update: every trained variable moves (Adam re-points variables the same way). */
function learnerMoves(models: HfRunModels, by: number): void {
  for (const v of trainedVariables(models)) tf.tidy(() => v.assign(tf.add(v, by)));
}

async function open(mode: 'lora' | 'full', async: TrainingConfig['async'], sampling: { temperature?: number; topP?: number } = {}): Promise<{ models: HfRunModels; config: TrainingConfig }> {
  const base = resolveConfig('babyai', {
    steps: 2, ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
    hf: { model: MODEL, mode, lora: { r: 2 }, maxNewTokens: 8, ...(sampling.topP !== undefined ? { topP: sampling.topP } : {}) },
  });
  const config = async === undefined ? base : { ...base, async };
  const models = await openHfModels({ settings: config.hf!, lr: 1e-2, seed: 3, backend: 'wasm', critic: false, agentCopy: async !== undefined });
  return { models, config };
}

const agentOf = (policy: unknown): HfPolicy => (policy as RecordingPolicyAgent).inner as HfPolicy;

describe('the HF agent\'s own weights under asynchronous training', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });

  it.each(['lora', 'full'] as const)('%s: a publish does not change the agent mid-collection; after apply it decodes as the learner did', async (mode) => {
    const { models, config } = await open(mode, ASYNC);
    const baseline = tf.memory().numTensors;
    const run = hfRunModel(getEnv('babyai'), models, config, 0);
    const agent = agentOf(run.policy);
    expect(agent.model).not.toBe(models.model);
    const initial = logits(agent.model);
    expect(initial).toEqual(logits(models.model));

    learnerMoves(models, 0.05);
    const published = logits(models.model);
    expect(published).not.toEqual(initial);
    expect(logits(agent.model)).toEqual(initial);
    const staged = run.publish(1);
    // The learner trains on while the collection runs: the agent still decodes with version 0.
    learnerMoves(models, 0.05);
    expect(agent.version).toBe(0);
    expect(logits(agent.model)).toEqual(initial);

    staged.apply();
    expect(agent.version).toBe(1);
    expect(logits(agent.model)).toEqual(published);
    expect(logits(agent.model)).not.toEqual(logits(models.model));
    if (mode === 'lora') {
      // Only the adapters are copied: the frozen base weights are the learner's own tensors.
      expect(agent.model.weights.layers[0]!.attention.q.weight).toBe(models.model.weights.layers[0]!.attention.q.weight);
      expect(agent.model.weights.layers[0]!.attention.q.lora!.a).not.toBe(models.model.weights.layers[0]!.attention.q.lora!.a);
    }

    // A snapshot replaced before it is applied is freed; dispose frees the agent's copy.
    const before = tf.memory().numTensors;
    run.publish(2).discard?.();
    expect(tf.memory().numTensors).toBe(before);
    run.dispose();
    expect(tf.memory().numTensors).toBe(baseline);
    models.dispose();
  });

  it('a stale reply records the log-probs of the version that sampled it: tempered softmax over the whole vocabulary, as the learner scores', async () => {
    const temperature = 0.7;
    const { models, config } = await open('lora', ASYNC, { temperature, topP: 0.8 });
    const run = hfRunModel(getEnv('babyai'), models, config, 0);
    const agent = agentOf(run.policy);
    learnerMoves(models, 0.05);
    run.publish(1).apply();
    learnerMoves(models, 0.05); // the learner is a version ahead of the sampler
    await agent.act([{ episodeId: 'e', turn: 0, seed: 7, observation: 'Your goal: go to the red ball\nThere is a red ball 1 2 steps in front of you.' }]);
    const record = agent.release('e')!;
    const score = async (model: HfCausalLm) => Array.from((await scoreRows(hfScoring(model, { positionChunk: 64, recompute: false }), [{ tokens: record.tokens }], { temperature, constrained: false })).logProbs[0]!);
    const [behaviour, learner] = [await score(agent.model), await score(models.model)];
    const sampled = record.mask.flatMap((m, i) => (m === 1 ? [i] : []));
    expect(sampled.length).toBeGreaterThan(0);
    // π_behav: what the agent's weights give (decode vs scoring kernels: float rounding), not the
    // nucleus-renormalised probability (top-p 0.8 would add −log(kept mass) to each), nor the learner's.
    for (const i of sampled) expect(record.logProbs[i]).toBeCloseTo(behaviour[i]!, 3);
    expect(sampled.some((i) => Math.abs(record.logProbs[i]! - learner[i]!) > 1e-3)).toBe(true);
    run.dispose();
    models.dispose();
  });

  it('a worker\'s loadWeights reaches the agent\'s own copy (the learner\'s config is asynchronous there too)', async () => {
    const [learner, worker] = [await open('lora', ASYNC), await open('lora', ASYNC)];
    const [from, to] = [hfRunModel(getEnv('babyai'), learner.models, learner.config, 0), hfRunModel(getEnv('babyai'), worker.models, worker.config, 0)];
    learnerMoves(learner.models, 0.05);
    const named = await from.exportWeights(3);
    to.loadWeights(named);
    expect(agentOf(to.policy).version).toBe(3);
    expect(logits(agentOf(to.policy).model)).toEqual(logits(learner.models.model));
    // Still its own copy: a later update of the variables does not reach it mid-assignment.
    expect(agentOf(to.policy).model).not.toBe(worker.models.model);
    for (const run of [from, to]) run.dispose();
    for (const m of [learner, worker]) m.models.dispose();
  });

  it('synchronous runs decode with the learner\'s own model (no copy)', async () => {
    const { models, config } = await open('lora', undefined);
    const baseline = tf.memory().numTensors;
    const run = hfRunModel(getEnv('babyai'), models, config, 0);
    const agent = agentOf(run.policy);
    expect(agent.model).toBe(models.model);
    run.publish(1).apply();
    expect(agent.model).toBe(models.model);
    expect(agent.version).toBe(1);
    expect(tf.memory().numTensors).toBe(baseline);
    run.dispose();
    models.dispose();
  });
});
