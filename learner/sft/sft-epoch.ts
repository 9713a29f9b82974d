/**
 * One pass of behaviour cloning over the training rows, and the validation loss. The update is
 * the learner's (train-step.ts `updateChunked`, or the two-thread `DataParallelGrads.update`) with
 * `objective: 'cross-entropy'`: the same length chunking, constrained scoring, clipping and Adam.
 */
import { deriveSeed } from '../../machines/seed.ts';
import { isTransformer, type ScoringModel } from '../scoring-model.ts';
import type { LearnerArgs } from '../args.ts';
import type { DataParallelGrads } from '../data-parallel.ts';
import type { LearnerOptimizer } from '../optimizer.ts';
import { scoreRows } from '../score.ts';
import { shuffled, updateChunked } from '../train-step.ts';
import type { SftRow } from './demo-rows.ts';

const SFT_SHUFFLE = 0x5f7;

export interface SftEpochInput {
  readonly model: ScoringModel;
  readonly optimizer: LearnerOptimizer;
  /** The learner args with `objective: 'cross-entropy'`. */
  readonly args: LearnerArgs;
  readonly rows: readonly SftRow[];
  readonly seed: number;
  /** 1-based epoch: the shuffle is derived from (seed, epoch), so a resumed run replays it. */
  readonly epoch: number;
  readonly parallel?: DataParallelGrads;
  /** Called after each update with (updates done, updates in the epoch). */
  readonly onUpdate?: (done: number, total: number) => void;
  /** Checked between updates; true stops the epoch early (its updates are kept). */
  readonly stopped?: () => boolean;
}

const zeros = (n: number): Float32Array => new Float32Array(n);

/** Token-weighted means of the updates' metrics (`loss` = the NLL per agent token). */
export async function sftEpoch(input: SftEpochInput): Promise<{ metrics: Record<string, number>; complete: boolean }> {
  const { model, optimizer, args, rows } = input;
  const order = shuffled(rows.length, deriveSeed(input.seed, input.epoch, SFT_SHUFFLE));
  const total = Math.ceil(order.length / args.minibatch);
  const sums: Record<string, number> = {};
  let weight = 0;
  let updates = 0;
  let skipped = 0;
  for (let start = 0; start < order.length; start += args.minibatch) {
    if (input.stopped?.()) return { metrics: means(), complete: false };
    const batch = order.slice(start, start + args.minibatch).map((i) => rows[i]!);
    const fields = {
      mask: batch.map((r) => r.mask),
      oldLogProbs: batch.map((r) => zeros(r.tokens.length)),
      advantages: batch.map((r) => zeros(r.tokens.length)),
    };
    const m = input.parallel && isTransformer(model) ? await input.parallel.update(model, optimizer, batch, fields, args) : updateChunked(model, optimizer, batch, fields, args);
    const tokens = batch.reduce((a, r) => a + r.mask.reduce((x, y) => x + y, 0), 0);
    for (const k of ['loss', 'entropy', 'gradNorm']) sums[k] = (sums[k] ?? 0) + (m[k] ?? 0) * tokens;
    weight += tokens;
    skipped += m.skipped ?? 0;
    updates += 1;
    input.onUpdate?.(updates, total);
  }
  return { metrics: means(), complete: true };

  function means(): Record<string, number> {
    const out: Record<string, number> = { updates, skippedUpdates: skipped, trainedTokens: weight };
    for (const [k, v] of Object.entries(sums)) out[k] = weight > 0 ? v / weight : 0;
    return out;
  }
}

/** Mean negative log-likelihood per agent token of `rows` (no gradients); NaN with no rows. */
export async function validationLoss(model: ScoringModel, rows: readonly SftRow[], args: LearnerArgs, parallel?: DataParallelGrads): Promise<number> {
  if (rows.length === 0) return Number.NaN;
  const options = { temperature: args.temperature, constrained: args.constrainedLoss };
  const scores = parallel && isTransformer(model) ? await parallel.scoreRows(model, rows, options) : await scoreRows(model, rows, options);
  let sum = 0;
  let count = 0;
  rows.forEach((row, r) => {
    const lp = scores.logProbs[r]!;
    for (let t = 0; t < row.mask.length; t++) {
      if (row.mask[t] !== 1) continue;
      sum -= lp[t]!;
      count += 1;
    }
  });
  return count > 0 ? sum / count : Number.NaN;
}
