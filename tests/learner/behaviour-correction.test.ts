/** Issue 37 (asynchronous training): which old log-probs and weights each training row gets. */
import { describe, expect, it } from 'vitest';
import { behaviourCorrection } from '../../learner/behaviour-correction.ts';
import type { TrainingRow } from '../../learner/rows.ts';

const L = Math.log;
// Two rows of 4 tokens; agent tokens at 1..3 (row 0) and 2..3 (row 1).
const rows: TrainingRow[] = [
  { tokens: [1, 2, 3, 4], mask: [0, 1, 1, 1], oldLogProbs: [0, L(0.2), L(0.1), L(0.5)], sampledLogProbs: [0, L(0.4), L(0.25), L(0.1)], episode: 0 },
  { tokens: [1, 2, 3, 4], mask: [0, 0, 1, 1], oldLogProbs: [0, 0, L(0.3), L(0.3)], sampledLogProbs: [0, 0, L(0.6), L(0.6)], episode: 1 },
];
const prox = [Float32Array.from([0, L(0.3), L(0.4), L(0.25)]), Float32Array.from([0, 0, L(0.6), L(0.3)])];
const synchronousOld = [Float32Array.from([0, -9, -9, -9]), Float32Array.from([0, 0, -8, -8])];

describe('behaviourCorrection', () => {
  it('full vocabulary: a stale row gets old = π_prox and w = min(π_prox/π_behav, cap) against the recorded logProbs', () => {
    const c = behaviourCorrection({ rows, stale: [true, false], synchronousOld, prox, constrained: false, importanceCap: 2 });
    expect(c.oldLogProbs[0]).toBe(prox[0]);
    // 0.3/0.2 = 1.5, 0.4/0.1 = 4 → 2 (cut), 0.25/0.5 = 0.5
    const w0 = Array.from(c.importanceWeights[0]!);
    [0, 1.5, 2, 0.5].forEach((x, t) => expect(w0[t]).toBeCloseTo(x, 6));
    // The fresh row: the synchronous path's old log-probs, w = 1 exactly on its agent tokens.
    expect(c.oldLogProbs[1]).toBe(synchronousOld[1]);
    expect(Array.from(c.importanceWeights[1]!)).toEqual([0, 0, 1, 1]);
    expect(c.metrics.importanceWeight).toBeCloseTo((1.5 + 2 + 0.5 + 1 + 1) / 5, 6);
    expect(c.metrics.importanceTruncated).toBeCloseTo(1 / 5, 6);
  });

  it('constrainedLoss: π_behav is the drawn-from distribution (sampledLogProbs), not the full-vocabulary logProbs', () => {
    const c = behaviourCorrection({ rows, stale: [true, true], synchronousOld, prox, constrained: true, importanceCap: 2 });
    // 0.3/0.4, 0.4/0.25, 0.25/0.1 → 2 (cut); row 1: 0.6/0.6, 0.3/0.6
    const w = c.importanceWeights.map((r) => Array.from(r));
    [0, 0.75, 1.6, 2].forEach((x, t) => expect(w[0]![t]).toBeCloseTo(x, 6));
    [0, 0, 1, 0.5].forEach((x, t) => expect(w[1]![t]).toBeCloseTo(x, 6));
    expect(c.metrics.importanceTruncated).toBeCloseTo(1 / 5, 6);
  });

  it('a constrained stale row without sampledLogProbs is an error naming the field; a fresh one needs none', () => {
    const bare = rows.map(({ sampledLogProbs: _, ...r }) => r);
    expect(() => behaviourCorrection({ rows: bare, stale: [false, true], synchronousOld, prox, constrained: true, importanceCap: 2 }))
      .toThrow(/row 1 has no sampledLogProbs/);
    expect(() => behaviourCorrection({ rows: bare, stale: [false, false], synchronousOld, prox: undefined, constrained: true, importanceCap: 2 })).not.toThrow();
  });
});
