/**
 * Issue 37 (asynchronous training): a learner step with `args.async` against the synchronous one.
 * When π_behav = π_prox the correction must vanish bit for bit (w = 1, same old log-probs); when
 * the rows are stale it must be the hand-checkable weights of behaviour-weights.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataParallelGrads } from '../../learner/data-parallel.ts';
import { behaviourWeights } from '../../algorithms/behaviour-weights.ts';
import type { CollectedEpisode } from '../../learner/collected-step.ts';
import { AllowedTokensBuilder } from '../../learner/allowed-tokens.ts';
import { freshModels } from '../../learner/run-models.ts';
import { selectRows } from '../../learner/rows.ts';
import { scoreRows } from '../../learner/score.ts';
import { trainStep } from '../../learner/train-step.ts';
import { resolveConfig, type TrainingConfig } from '../../learner/training-config.ts';
import { defaultMaxActionTokens } from '../../policy/action-trie.ts';
import { selectBackend } from '../../policy/backend.ts';
import type { TokenTrajectory } from '../../policy/policy.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { enc, episodes, tokenizer } from '../actors/learner-episodes.ts';

const MODEL = { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 };
const ASYNC = { maxStaleness: 1, importanceCap: 2 };

beforeAll(async () => {
  await selectBackend('cpu');
});

const weightsOf = (m: ReturnType<typeof freshModels>) => m.optimizer.variables.map((v) => Array.from(v.dataSync()));

/** The rows trainStep builds, scored by `models`' learner before any update. */
async function ownScores(models: ReturnType<typeof freshModels>, config: TrainingConfig, eps: readonly CollectedEpisode[]) {
  const decoding = { constrained: true as const, encode: enc, vocabSize: models.model.config.vocabSize, maxActionTokens: defaultMaxActionTokens(MODEL.maxContext) };
  const set = selectRows(eps, config.algo, true, config.constrainedLoss ? new AllowedTokensBuilder(decoding) : undefined);
  return { set, scores: await scoreRows(models.model, set.rows, { temperature: config.temperature, constrained: config.constrainedLoss }) };
}

/** `eps` with each window's `field` replaced by the given per-row arrays (rows in window order). */
function withWindows(eps: readonly CollectedEpisode[], field: 'logProbs' | 'sampledLogProbs', perRow: readonly ArrayLike<number>[]): CollectedEpisode[] {
  let r = 0;
  return eps.map((e) => {
    const windows = e.record!.trajectory.windows.map((w): TokenTrajectory => ({ ...w, [field]: Array.from(perRow[r++]!) }));
    return { ...e, record: { ...e.record!, trajectory: { ...windows[windows.length - 1]!, windows } } };
  });
}

async function step(config: TrainingConfig, eps: readonly CollectedEpisode[], staleness?: number[], parallel?: (m: ReturnType<typeof freshModels>) => Promise<DataParallelGrads>) {
  const models = freshModels(tokenizer, config);
  const metrics = await trainStep({
    model: models.model, reference: models.reference, optimizer: models.optimizer, args: config,
    episodes: eps, seed: 0, step: 1, dropUninformative: true, encode: enc, ...(staleness ? { staleness } : {}),
    ...(parallel ? { parallel: await parallel(models) } : {}),
  });
  const weights = weightsOf(models);
  models.dispose();
  return { metrics, weights };
}

/** The synchronous metrics (every key the synchronous step reports, timing aside). */
const sameKeys = (sync: Record<string, number>) => Object.keys(sync).filter((k) => k !== 'tokensPerSec');

describe('trainStep with args.async', () => {
  it('constrainedLoss, every row stale with π_behav = π_prox: metrics and weights bit-identical to the synchronous step', async () => {
    const sync = resolveConfig('babyai', { steps: 1, epochs: 2, minibatch: 3, model: MODEL });
    const probe = freshModels(tokenizer, sync);
    const { scores } = await ownScores(probe, sync, episodes);
    probe.dispose();
    const eps = withWindows(episodes, 'sampledLogProbs', scores.logProbs);
    const a = await step(sync, eps);
    const b = await step({ ...sync, async: ASYNC }, eps); // staleness unknown: every row corrected
    for (const k of sameKeys(a.metrics)) expect(b.metrics[k], k).toBe(a.metrics[k]);
    expect(b.weights).toEqual(a.weights);
    expect(b.metrics['importanceWeight']).toBe(1);
    expect(b.metrics['importanceTruncated']).toBe(0);
    expect(a.metrics['importanceWeight']).toBeUndefined();
  });

  it('full vocabulary, fresh rows (staleness 0): bit-identical to synchronous, with no extra scoring pass needed', async () => {
    const sync = resolveConfig('babyai', { steps: 1, constrainedLoss: false, minibatch: 3, model: MODEL });
    const a = await step(sync, episodes);
    const b = await step({ ...sync, async: ASYNC }, episodes, [0, 0, 0, 0]);
    for (const k of sameKeys(a.metrics)) expect(b.metrics[k], k).toBe(a.metrics[k]);
    expect(b.weights).toEqual(a.weights);
    expect(b.metrics['importanceWeight']).toBe(1);
  });

  it('full vocabulary, stale rows: the weights against the recorded log-probs, the loss and update move', async () => {
    const sync = resolveConfig('babyai', { steps: 1, constrainedLoss: false, minibatch: 64, klCoef: 0, entropyCoef: 0, model: MODEL });
    const probe = freshModels(tokenizer, sync);
    const { set, scores } = await ownScores(probe, sync, episodes);
    probe.dispose();
    // Episodes 1 and 3 (the negative advantages) stale, 0 and 2 fresh; recorded log-probs are −1,
    // far above the untrained model's (≈ −4.7): synchronous PPO clips those tokens (ratio ≈ 0.02 <
    // 1 − ε, A < 0: no gradient), the decoupled objective trains them with a small weight w.
    const staleness = [0, 1, 0, 2];
    let tokens = 0;
    let sum = 0;
    let cut = 0;
    set.rows.forEach((row, i) => {
      const fresh = staleness[row.episode] === 0;
      const w = behaviourWeights(scores.logProbs[i]!, row.oldLogProbs, row.mask, ASYNC.importanceCap);
      tokens += w.tokens;
      sum += fresh ? w.tokens : w.weightSum;
      cut += fresh ? 0 : w.truncated;
    });
    const a = await step(sync, episodes);
    const b = await step({ ...sync, async: ASYNC }, episodes, staleness);
    expect(b.metrics['importanceWeight']).toBeCloseTo(sum / tokens, 6);
    expect(b.metrics['importanceTruncated']).toBeCloseTo(cut / tokens, 6);
    expect(b.metrics['importanceWeight']).not.toBe(1);
    expect(b.metrics['lossPolicy']).not.toBe(a.metrics['lossPolicy']);
    expect(b.weights).not.toEqual(a.weights);
  });

  it('rejects stale constrained rows without sampledLogProbs, and a staleness list of the wrong length', async () => {
    const config = resolveConfig('babyai', { steps: 1, model: MODEL, async: ASYNC });
    await expect(step(config, episodes)).rejects.toThrow(/needs the sampler's constrained log-probs: row 0 has no sampledLogProbs/);
    await expect(step(config, episodes, [0, 0])).rejects.toThrow(/staleness has 2 entries, expected one per episode \(4\)/);
    // All fresh: nothing to correct, nothing missing.
    await expect(step(config, episodes, [0, 0, 0, 0])).resolves.toBeDefined();
  });
});

describe('asynchronous steps on two learner threads', () => {
  const workers: DataParallelGrads[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
  });

  it('the worker\'s half applies the same importance weights: metrics as one thread\'s', async () => {
    const config = { ...resolveConfig('babyai', { steps: 1, constrainedLoss: false, minibatch: 4, model: MODEL }), async: ASYNC };
    const start = async (m: ReturnType<typeof freshModels>) => {
      const w = await DataParallelGrads.start({ backend: 'wasm', config: m.model.config, names: m.optimizer.params.map(([n]) => n) });
      workers.push(w);
      return w;
    };
    const one = await step(config, episodes, [0, 1, 0, 2]);
    const two = await step(config, episodes, [0, 1, 0, 2], start);
    for (const k of ['loss', 'lossPolicy', 'clipFraction', 'importanceWeight', 'importanceTruncated']) expect(two.metrics[k], k).toBeCloseTo(one.metrics[k]!, 4);
    expect(two.metrics['importanceWeight']).not.toBe(1);
  });
});

describe('the transformer records π_behav on the learner\'s constrained footing', () => {
  it('sampledLogProbs equal the learner\'s constrained scores of the same weights; the full-vocabulary logProbs do not', async () => {
    const config = resolveConfig('babyai', { steps: 1, model: MODEL });
    const models = freshModels(tokenizer, config);
    const policy = new TransformerPolicy(models.model, tokenizer);
    const actions = ['turn left', 'go to the red ball', 'go to the blue key'];
    for (let turn = 0; turn < 3; turn++) {
      await policy.act([{ episodeId: 'e', turn, observation: 'You see a red ball and a blue key.', seed: 5, availableActions: actions }]);
    }
    const record = policy.release('e')!;
    const windows = record.windows ?? [record];
    const allowed = new AllowedTokensBuilder(policy.actionDecoding).forEpisode(windows, [actions, actions, actions]);
    const scores = await scoreRows(models.model, windows.map((w, i) => ({ tokens: [...w.tokens], allowed: allowed[i]! })), { temperature: 1, constrained: true });
    let apart = 0;
    windows.forEach((w, i) => w.mask.forEach((m, t) => {
      if (m !== 1) return;
      expect(w.sampledLogProbs![t]).toBeCloseTo(scores.logProbs[i]![t]!, 4);
      apart = Math.max(apart, Math.abs(w.logProbs[t]! - scores.logProbs[i]![t]!));
    }));
    expect(apart).toBeGreaterThan(0.1); // an untrained model puts most mass outside the allowed tokens
    models.dispose();
  });
});
