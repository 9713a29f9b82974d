/**
 * The stats one trainer step's finished batches feed the adaptive curriculum: the batches'
 * per-slot results pooled into one summary (as `stepOfGroups` pools a step's GRPO groups), read
 * by the same `rolloutStats` training sends with `LEARNER.STEPPED`, plus `groups` — the step's
 * task groups, the n of the success rate's noise (the learner's `groups`). No entropy: the
 * service sees no update, so the collapse test reads turns on successes only.
 */
import type { RolloutSummary } from '../../streams/events.ts';
import { summarize } from '../summarize.ts';
import { rolloutStats } from '../training/metrics.ts';

/** One finished batch of a step: its summary and its distinct tasks. */
export interface FinishedBatch {
  readonly summary: RolloutSummary;
  readonly tasks: number;
}

/** The curriculum metrics of step `step` run at `horizon`, from its finished batches (at least one). */
export function pooledStepStats(step: number, horizon: number, batches: readonly FinishedBatch[]): Record<string, number> {
  const results = batches.flatMap((batch) => batch.summary.results);
  const attempts = results.reduce((a, r) => a + r.attempts, 0);
  const seconds = batches.reduce((a, b) => a + b.summary.wallSeconds, 0);
  const ledger = { started: 0, ended: 0, dropped: 0, violations: 0, outcomes: { success: 0, failure: 0, truncated: 0, aborted: 0 } };
  const summary = summarize({ env: '', split: 'train', agent: '', seed: 0, settled: results, attempts, steps: 0, horizon, wallSeconds: seconds, ledger });
  const groups = batches.reduce((a, b) => a + b.tasks, 0);
  return { ...rolloutStats({ step, horizon, episodes: [], summary, rounds: 1, seconds }), groups };
}
