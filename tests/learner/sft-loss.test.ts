import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AllowedTokensBuilder } from '../../learner/allowed-tokens.ts';
import { padRows } from '../../learner/minibatch.ts';
import { scoreRows } from '../../learner/score.ts';
import { minibatchGrads } from '../../learner/update.ts';
import { demoRows } from '../../learner/sft/demo-rows.ts';
import { sftEpoch, validationLoss } from '../../learner/sft/sft-epoch.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels } from '../../learner/run-models.ts';
import type { Demo } from '../../demos/demo.ts';
import { selectBackend } from '../../policy/backend.ts';
import { FilteredPolicy } from '../../policy/observation-filter.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { tokenizer } from '../actors/learner-episodes.ts';

const ACTIONS = ['turn left', 'go to the red ball', 'go to the blue key', 'go to the red key', 'go to the blue ball'];

const tiny = { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 };
const config = resolveConfig('babyai', { steps: 1, model: tiny, observation: 'full', historyTurns: 1, lr: 3e-3, minibatch: 8 });

const FIRST: Record<string, string> = { t0: 'You see a red ball and a blue key.', t1: 'You see a blue key.', t2: 'You see a red key.', t3: 'You see a blue ball.' };

function demo(picks: readonly number[], taskId = 't0'): Demo {
  return {
    format: 'actorgym-demo', version: 1, env: 'babyai', split: 'train', taskId, sample: 0, agent: 'oracle', seed: 7, episodeId: `d-${taskId}`,
    outcome: 'success', reward: 1, finalObservation: 'You see a red ball.',
    turns: picks.map((p, i) => ({ observation: i === 0 ? FIRST[taskId]! : 'You see a blue key.', availableActions: ACTIONS, action: ACTIONS[p]!, reward: 0 })),
  };
}

function rowsFor(model: ReturnType<typeof freshModels>, demos: readonly Demo[]) {
  const inner = new TransformerPolicy(model.model, tokenizer, { historyTurns: 1 });
  const policy = new FilteredPolicy(inner, 'full', { record: true });
  return demoRows(demos, policy, new AllowedTokensBuilder(inner.actionDecoding));
}

const zerosLike = (rows: readonly { tokens: readonly number[] }[]) => rows.map((r) => new Float32Array(r.tokens.length));

describe('behaviour cloning (actors/sft)', () => {
  beforeAll(async () => {
    await selectBackend('wasm');
  });

  it('demonstrated actions become mask-1 tokens in the RL layout; an unlisted action skips the demo', () => {
    const models = freshModels(tokenizer, config);
    const out = rowsFor(models, [demo([0, 2, 1]), { ...demo([1]), turns: [{ ...demo([1]).turns[0]!, action: 'fly away' }] }]);
    expect(out.used).toBe(1);
    expect(out.skipped).toEqual([{ demo: 1, reason: expect.stringContaining('not among the') }]);
    // Every agent token belongs to an action the demo took, ending in </act>: three runs of mask 1.
    const runs = out.rows.flatMap((r) => r.mask.map((m, t): number => (m === 1 && r.mask[t - 1] !== 1 ? 1 : 0))).reduce((a, b) => a + b, 0);
    expect(runs).toBe(3);
    expect(out.agentTokens).toBe(out.rows.reduce((a, r) => a + r.mask.filter((m) => m === 1).length, 0));
    for (const r of out.rows) r.allowed!.forEach((a, t) => expect(a !== undefined).toBe(r.mask[t] === 1));
    models.dispose();
  });

  it('the loss is the mean NLL of the agent tokens, and falls on a fixed batch', async () => {
    const models = freshModels(tokenizer, config);
    const { rows } = rowsFor(models, [demo([0, 2]), demo([3], 't1'), demo([4], 't2'), demo([1, 0, 2], 't3')]);
    const args = { ...config, objective: 'cross-entropy' as const };
    const fields = { mask: rows.map((r) => r.mask), oldLogProbs: zerosLike(rows), advantages: zerosLike(rows) };
    const first = minibatchGrads(models.model, models.optimizer.variables, padRows(rows), fields, args);
    tf.dispose(first.grads);
    // Against the scores computed without gradients: -mean over mask-1 positions.
    expect(first.metrics.loss).toBeCloseTo(await validationLoss(models.model, rows, args), 4);
    const scores = await scoreRows(models.model, rows, { temperature: 1, constrained: true });
    let sum = 0;
    let n = 0;
    rows.forEach((r, i) => r.mask.forEach((m, t) => { if (m === 1) { sum -= scores.logProbs[i]![t]!; n += 1; } }));
    expect(first.metrics.loss).toBeCloseTo(sum / n, 4);
    for (let epoch = 1; epoch <= 30; epoch++) await sftEpoch({ model: models.model, optimizer: models.optimizer, args, rows, seed: 0, epoch });
    expect(await validationLoss(models.model, rows, args)).toBeLessThan(first.metrics.loss! * 0.5);
    models.dispose();
  });

  it('gradients come from agent tokens only: changing a context token after the last action changes nothing, changing an action token does', () => {
    const models = freshModels(tokenizer, config);
    const args = { ...config, objective: 'cross-entropy' as const };
    const { rows } = rowsFor(models, [demo([0, 2])]);
    const row = rows[rows.length - 1]!;
    const lastAgent = row.mask.lastIndexOf(1);
    const firstAgent = row.mask.indexOf(1);
    // Append mask-0 context after the final action: it is neither an input nor a target of any trained token.
    const extended = { ...row, tokens: [...row.tokens, 9, 10], mask: [...row.mask, 0, 0], allowed: [...row.allowed!, undefined, undefined] };
    const changed = { ...extended, tokens: [...row.tokens, 11, 12] };
    const grads = (r: typeof extended) => minibatchGrads(models.model, models.optimizer.variables, padRows([r]), { mask: [r.mask], oldLogProbs: zerosLike([r]), advantages: zerosLike([r]) }, args);
    const a = grads(extended);
    const b = grads(changed);
    expect(b.metrics.loss).toBe(a.metrics.loss);
    for (const v of models.optimizer.variables) expect(Array.from(b.grads[v.name]!.dataSync())).toEqual(Array.from(a.grads[v.name]!.dataSync()));
    // An agent token's target changes the loss. (A token before it in the window feeds it as context.)
    expect(lastAgent).toBeGreaterThan(firstAgent);
    const tokens = [...extended.tokens];
    tokens[firstAgent - 1] = tokens[firstAgent - 1] === 9 ? 10 : 9; // the context right before the first action
    const c = grads({ ...extended, tokens });
    expect(c.metrics.loss).not.toBe(a.metrics.loss);
    tf.dispose([a.grads, b.grads, c.grads]);
    models.dispose();
  });
});
