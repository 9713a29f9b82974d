/**
 * The `trainPolicy` effect: one learner step on one step's rollouts.
 *
 *   1. rows: every window of every trained episode (rows.ts);
 *   2. scoring without gradients: reference log-probs (KL) and, for PPO, the critic's values;
 *      With `args.async`, rows sampled by older weights train on decoupled PPO against the
 *      learner's own scores, with truncated behaviour weights (behaviour-correction.ts);
 *   3. advantages over whole episodes (rows.ts), computed once, before any update;
 *   4. `epochs` passes, each over the rows shuffled (seeded by run seed, step and epoch) and cut
 *      into minibatches of `minibatch` rows; one clipped Adam step per minibatch (update.ts).
 *
 * Metrics are the means over the minibatch updates (token-weighted per minibatch, as the loss).
 */
import type { Algorithm } from '../algorithms/index.ts';
import { deriveSeed } from '../machines/seed.ts';
import { defaultMaxActionTokens, type ActionDecoding } from '../policy/action-trie.ts';
import { mulberry32 } from '../policy/rng.ts';
import { isTransformer, type ScoringModel } from './scoring-model.ts';
import { AllowedTokensBuilder } from './allowed-tokens.ts';
import type { LearnerArgs } from './args.ts';
import type { CollectedEpisode } from './collected-step.ts';
import type { LearnerOptimizer } from './optimizer.ts';
import { behaviourCorrection } from './behaviour-correction.ts';
import { rowAdvantages, selectRows, type RowSet } from './rows.ts';
import { scoreRows } from './score.ts';
import type { DataParallelGrads } from './data-parallel.ts';
import { applyGrads, type MinibatchFields } from './update.ts';
import { chunkedGrads } from './chunked-grads.ts';

const SHUFFLE_STREAM = 0x5b1f;

export interface TrainStepInput {
  /** Our transformer, or an external model (constrainedLoss off, no `decoding`, no `parallel`). */
  readonly model: ScoringModel;
  readonly reference: ScoringModel;
  readonly optimizer: LearnerOptimizer;
  readonly args: LearnerArgs;
  readonly episodes: readonly CollectedEpisode[];
  readonly seed: number;
  readonly step: number;
  /** GRPO/RLOO: skip groups whose rewards are all equal (their advantage is 0). */
  readonly dropUninformative: boolean;
  /**
   * How the policy chose each turn's decoder (TransformerPolicy.actionDecoding): the learner
   * rebuilds the same decoders, so it scores the distribution each token was sampled from.
   */
  readonly decoding?: ActionDecoding;
  /**
   * Without `decoding`: the action encoding of a default TransformerPolicy over `model`
   * (constrained, tokenizer vocabulary = the model's, default free-form cap).
   */
  readonly encode?: (text: string) => number[];
  /** Half of the scoring and of every minibatch's gradients computed on a second core (data-parallel.ts). */
  readonly parallel?: DataParallelGrads;
  /**
   * Asynchronous training (`args.async`): per episode, aligned with `episodes`, how many versions
   * the learner's weights are past the ones that sampled it (trajectory-group.ts `staleness`).
   * Rows of staleness 0 train as in synchronous training; the others get the behaviour
   * correction (behaviour-correction.ts). Absent: every row is corrected (staleness unknown).
   */
  readonly staleness?: readonly number[];
}

const MEAN_KEYS = ['loss', 'lossPolicy', 'lossKl', 'lossEntropy', 'lossValue', 'kl', 'entropy', 'clipFraction', 'approxKl', 'gradNorm'] as const;

/** 0..n-1 in a seeded random order (Fisher–Yates over mulberry32). */
export function shuffled(n: number, seed: number): number[] {
  const rng = mulberry32(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

function decodingOf(input: TrainStepInput): ActionDecoding | undefined {
  if (input.decoding !== undefined) return input.decoding;
  if (!isTransformer(input.model)) return undefined;
  if (input.encode === undefined) throw new Error('trainStep needs the policy\'s action decoding (or its encode)');
  const { vocabSize, maxContext } = input.model.config;
  return { constrained: true, encode: input.encode, vocabSize, maxActionTokens: defaultMaxActionTokens(maxContext) };
}

export async function trainStep(input: TrainStepInput): Promise<Record<string, number>> {
  const { model, reference, optimizer, args, step } = input;
  const algo: Algorithm = args.algo;
  if (!isTransformer(input.model) && (args.constrainedLoss || input.parallel)) {
    throw new Error('an external model is trained with constrainedLoss off and one learner thread');
  }
  const decoding = decodingOf(input);
  const set = selectRows(input.episodes, algo, input.dropUninformative, decoding ? new AllowedTokensBuilder(decoding) : undefined);
  const base = { trainedEpisodes: set.episodes.length, trainedWindows: set.rows.length, groups: set.groups, groupsWithSignal: set.groupsWithSignal };
  const zero = Object.fromEntries(MEAN_KEYS.map((k) => [k, 0]));
  if (set.rows.length === 0) return { ...zero, ...base, updates: 0, trainedTokens: 0, tokensPerSec: 0 };

  const started = performance.now();
  const scoring = { temperature: args.temperature, constrained: args.constrainedLoss };
  const score = (m: ScoringModel) => (input.parallel && isTransformer(m) ? input.parallel.scoreRows(m, set.rows, scoring) : scoreRows(m, set.rows, scoring));
  const ref = args.klCoef !== 0 ? await score(reference) : undefined;
  const stale = args.async ? staleRows(set, input) : undefined;
  // The learner's own scores: the old log-probs of the constrained ratio, PPO's old values, and
  // asynchronous training's proximal policy (the one extra scoring pass it costs when neither of
  // the others asks for them, and only when some row is stale).
  const own = args.constrainedLoss || algo === 'ppo' || stale?.includes(true) ? await score(model) : undefined;
  const critic = algo === 'ppo' ? own : undefined;
  const synchronousOld = args.constrainedLoss && own ? own.logProbs : set.rows.map((r) => r.oldLogProbs);
  const correction = args.async && stale
    ? behaviourCorrection({ rows: set.rows, stale, synchronousOld, prox: own?.logProbs, constrained: args.constrainedLoss, importanceCap: args.async.importanceCap })
    : undefined;
  const oldLogProbs = correction ? correction.oldLogProbs : synchronousOld;
  const { advantages, returns } = rowAdvantages(set, algo, {
    ...(critic ? { values: critic.values } : {}),
    ...(ref ? { refLogProbs: ref.logProbs } : {}),
  }, { normByStd: args.stdNorm });

  const sums: Record<string, number> = {};
  let updates = 0;
  let trainedTokens = 0;
  let skipped = 0;
  for (let epoch = 0; epoch < args.epochs; epoch++) {
    const order = shuffled(set.rows.length, deriveSeed(input.seed, step, epoch, SHUFFLE_STREAM));
    for (let start = 0; start < order.length; start += args.minibatch) {
      const idx = order.slice(start, start + args.minibatch);
      const rows = idx.map((i) => set.rows[i]!);
      const tokenCount = rows.reduce((a, r) => a + r.tokens.length, 0);
      const fields = {
        mask: rows.map((r) => r.mask),
        oldLogProbs: idx.map((i) => oldLogProbs[i]!),
        advantages: idx.map((i) => advantages[i]!),
        ...(ref ? { refLogProbs: idx.map((i) => ref.logProbs[i]!) } : {}),
        ...(critic ? { oldValues: idx.map((i) => critic.values[i]!), returns: idx.map((i) => returns[i]!) } : {}),
        ...(correction ? { importanceWeights: idx.map((i) => correction.importanceWeights[i]!) } : {}),
      };
      const m = input.parallel && isTransformer(model)
        ? await input.parallel.update(model, optimizer, rows, fields, args)
        : updateChunked(model, optimizer, rows, fields, args);
      for (const k of MEAN_KEYS) sums[k] = (sums[k] ?? 0) + (m[k] ?? 0);
      skipped += m.skipped ?? 0;
      trainedTokens += tokenCount;
      updates += 1;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const means = Object.fromEntries(MEAN_KEYS.map((k) => [k, (sums[k] ?? 0) / updates]));
  return { ...means, ...base, updates, skippedUpdates: skipped, trainedTokens, tokensPerSec: trainedTokens / seconds, ...correction?.metrics };
}

/** Per row: whether older weights sampled it (unknown staleness counts as stale). */
function staleRows(set: RowSet, input: TrainStepInput): boolean[] {
  const { staleness } = input;
  if (staleness === undefined) return set.rows.map(() => true);
  if (staleness.length !== input.episodes.length) {
    throw new Error(`staleness has ${staleness.length} entries, expected one per episode (${input.episodes.length})`);
  }
  const of = new Map(input.episodes.map((e, i) => [e, staleness[i]!]));
  return set.rows.map((r) => (of.get(set.episodes[r.episode]!) ?? 1) !== 0);
}

/** One Adam step on a minibatch whose gradients come from length chunks (chunked-grads.ts). */
export function updateChunked(model: ScoringModel, optimizer: LearnerOptimizer, rows: Parameters<typeof chunkedGrads>[2], fields: MinibatchFields, args: LearnerArgs): Record<string, number> {
  const { grads, metrics } = chunkedGrads(model, optimizer.variables, rows, fields, args);
  return { ...metrics, ...applyGrads(optimizer, grads, args) };
}
