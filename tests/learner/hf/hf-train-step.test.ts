/**
 * Issue 36: the learner trains a Hugging Face model through the same step as our transformer
 * (learner/train-step.ts on an `ExternalScoring`, learner/hf/hf-scoring.ts). With LoRA, a GRPO
 * step moves only adapter variables (the base weights stay bit-identical), raises the log-prob of
 * the rewarded episode's reply over the unrewarded one's, and reports the KL to the base model
 * (adapters off). The model refuses constrained scoring, which needs our transformer.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora, initLoraAdapters, loraConfig, type LoraCausalLm } from '../../../policy/hf/lora/index.ts';
import { hfScoring } from '../../../learner/hf/hf-scoring.ts';
import { LearnerOptimizer } from '../../../learner/optimizer.ts';
import { learnerDefaults, type LearnerArgs } from '../../../learner/args.ts';
import { scoreRows } from '../../../learner/score.ts';
import { trainStep } from '../../../learner/train-step.ts';
import type { CollectedEpisode } from '../../../learner/collected-step.ts';
import { modelDir } from '../../policy/hf/fixtures.ts';

const PROMPT = [5, 17, 42, 9, 100, 3];
const GOOD = [7, 8, 9, 2];
const BAD = [70, 80, 90, 2];

/** An episode of one turn: the prompt (mask 0), then the reply (mask 1), with `reward`. */
function episode(reply: readonly number[], reward: number, group: number): CollectedEpisode {
  const tokens = [...PROMPT, ...reply];
  const mask = tokens.map((_, i) => (i >= PROMPT.length ? 1 : 0));
  return {
    group,
    output: { outcome: reward > 0 ? 'success' : 'failure', reward } as CollectedEpisode['output'],
    record: { trajectory: { tokens, mask, logProbs: tokens.map(() => 0), windows: [] }, availableActions: [undefined] },
  };
}

let lora: LoraCausalLm;

beforeAll(async () => {
  await selectBackend('wasm');
  const { model } = await loadHfModel(modelDir('qwen2-tiny'));
  const adapters = initLoraAdapters(model.config, loraConfig({ r: 4, alpha: 8 }), 7);
  lora = attachLora(model, adapters);
});

afterAll(() => lora?.dispose());

const replyLogProb = async (reply: readonly number[]): Promise<number> => {
  const tokens = [...PROMPT, ...reply];
  const { logProbs } = await scoreRows(hfScoring(lora.withAdapters, { positionChunk: 64, recompute: false }), [{ tokens }], { temperature: 1, constrained: false });
  return Array.from(logProbs[0]!).slice(PROMPT.length).reduce((a, b) => a + b, 0);
};

describe('a GRPO step on a Hugging Face model with LoRA', () => {
  it('moves only the adapters, towards the rewarded reply, with the KL to the base model', async () => {
    const base = lora.withoutAdapters.weights.layers[0]!.attention.q.weight.dataSync().slice();
    const optimizer = new LearnerOptimizer(1e-2, lora.adapters.pairs.flatMap((p) => [[`${p.module.path}.A`, p.a], [`${p.module.path}.B`, p.b]] as const));
    const args: LearnerArgs = { ...learnerDefaults, algo: 'grpo', constrainedLoss: false, klCoef: 1e-3 };
    const before = (await replyLogProb(GOOD)) - (await replyLogProb(BAD));
    const episodes = [episode(GOOD, 1, 0), episode(BAD, 0, 0), episode(GOOD, 1, 0), episode(BAD, 0, 0)];
    let metrics: Record<string, number> = {};
    for (let step = 0; step < 3; step++) {
      metrics = await trainStep({
        model: hfScoring(lora.withAdapters, { positionChunk: 64, recompute: false }), reference: hfScoring(lora.withoutAdapters, { positionChunk: 64, recompute: false }),
        optimizer, args, episodes, seed: 0, step, dropUninformative: true,
      });
    }
    const after = (await replyLogProb(GOOD)) - (await replyLogProb(BAD));
    expect(after).toBeGreaterThan(before + 0.05);
    expect(metrics.trainedEpisodes).toBe(4);
    expect(metrics.kl).toBeGreaterThan(0);
    expect(Number.isFinite(metrics.loss)).toBe(true);
    // The base projection is bit-identical: only the adapters trained.
    expect(Array.from(lora.withoutAdapters.weights.layers[0]!.attention.q.weight.dataSync())).toEqual(Array.from(base));
    expect(Math.max(...lora.adapters.pairs.map((p) => tf.max(tf.abs(p.b)).dataSync()[0]!))).toBeGreaterThan(0);
    optimizer.dispose();
  });

  it('refuses constrained scoring, which needs our transformer', async () => {
    const optimizer = new LearnerOptimizer(1e-2, []);
    await expect(trainStep({
      model: hfScoring(lora.withAdapters, { positionChunk: 64, recompute: false }), reference: hfScoring(lora.withoutAdapters, { positionChunk: 64, recompute: false }),
      optimizer, args: { ...learnerDefaults, algo: 'grpo' }, episodes: [episode(GOOD, 1, 0), episode(BAD, 0, 0)], seed: 0, step: 0, dropUninformative: true,
    })).rejects.toThrow(/constrainedLoss off/);
  });
});
