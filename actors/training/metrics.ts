/**
 * The metrics.jsonl line of a learner step. Flat keys (CleanRL's `losses/…` namespaces would make
 * every consumer quote them); the order below puts the keys a reader looks for first.
 *
 * Timing fields (`tokensPerSec`, `rolloutSeconds`, `learnSeconds`) are the only ones that differ
 * between two runs with the same seed and backend: `TIMING_FIELDS` lists them for comparisons.
 */
import type { CurriculumDecision } from '../../machines/curriculum.machine.ts';
import type { CollectedStep } from '../../learner/collected-step.ts';
import { staleness, type TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { summarize } from '../summarize.ts';

export const METRIC_ORDER = [
  'step', 'horizon', 'policyVersion', 'successRate', 'meanReward', 'meanTurns', 'successTurns', 'truncationRate', 'episodes', 'aborted',
  'loss', 'lossPolicy', 'lossKl', 'lossEntropy', 'lossValue', 'kl', 'entropy', 'clipFraction', 'approxKl', 'gradNorm',
  'tokensPerSec', 'rolloutSeconds', 'learnSeconds',
  'trainedEpisodes', 'trainedWindows', 'trainedTokens', 'groups', 'groupsWithSignal', 'updates', 'skippedUpdates', 'missingRecords',
] as const;

export const TIMING_FIELDS = ['tokensPerSec', 'rolloutSeconds', 'learnSeconds'] as const;

export function orderMetrics(metrics: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of METRIC_ORDER) if (key in metrics) out[key] = metrics[key]!;
  for (const [key, value] of Object.entries(metrics)) if (!(key in out)) out[key] = value;
  return out;
}

/**
 * Rollout-side numbers of a step: success, reward, turns and the share truncated by the horizon,
 * over episodes that were not aborted. The adaptive curriculum reads success, truncation, the
 * episode counts and `successTurns`, the mean turns of successful episodes (absent when none
 * succeeded): failures run to the horizon, so turns over all episodes only mirror success.
 */
export function rolloutStats(step: CollectedStep): Record<string, number> {
  const { summary } = step;
  const { success, failure, truncated } = summary.outcomes;
  const missingRecords = step.episodes.filter((e) => e.output.outcome !== 'aborted' && e.output.turns > 0 && e.record === undefined).length;
  const succeeded = summary.results.filter((r) => r.outcome === 'success');
  return {
    horizon: step.horizon,
    successRate: summary.successRate,
    meanReward: summary.meanReward,
    meanTurns: summary.meanTurns,
    ...(succeeded.length > 0 ? { successTurns: succeeded.reduce((a, r) => a + r.turns, 0) / succeeded.length } : {}),
    truncationRate: truncated / Math.max(1, success + failure + truncated),
    episodes: summary.episodes,
    aborted: summary.outcomes.aborted,
    rolloutSeconds: step.seconds,
    missingRecords,
  };
}

/**
 * The curriculum's decision after a step, as the last fields of its metrics.jsonl line: the
 * horizon of the next step, raise/hold/back, and why (machines/curriculum.machine.ts).
 */
export function decisionFields(decision: CurriculumDecision | null | undefined): Record<string, number | string> {
  if (!decision) return {};
  return { horizonNext: decision.to, horizonDecision: decision.decision, horizonReason: decision.reason };
}

/**
 * A step as the learner reads it, from the buffer's batch of its groups: the episodes in group
 * order (so in (slot, round, attempt) order over the step), and a summary of each slot's last result.
 */
export function stepOfGroups(step: number, horizon: number, groups: readonly TrajectoryGroup[], seconds: number): CollectedStep {
  const ordered = [...groups].sort((a, b) => a.index - b.index);
  const results = ordered.flatMap((group) => group.results);
  const attempts = results.reduce((a, r) => a + r.attempts, 0);
  const ledger = { started: 0, ended: 0, dropped: 0, violations: 0, outcomes: { success: 0, failure: 0, truncated: 0, aborted: 0 } };
  const summary = summarize({ env: '', split: 'train', agent: '', seed: 0, settled: results, attempts, steps: 0, horizon, wallSeconds: seconds, ledger });
  return { step, horizon, episodes: ordered.flatMap((group) => group.episodes), summary, rounds: 1, seconds };
}

/** Per episode of `stepOfGroups`'s order: how many versions the learner is past the weights that sampled it. */
export function stalenessOfGroups(groups: readonly TrajectoryGroup[], learnerVersion: number): number[] {
  return [...groups].sort((a, b) => a.index - b.index).flatMap((group) => group.episodes.map(() => staleness(group, learnerVersion)));
}
