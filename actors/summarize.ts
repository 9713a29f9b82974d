import type { EpisodeOutput } from '../machines/episode.machine.ts';
import type { LedgerCounts } from '../machines/rollout-buffer.machine.ts';
import type { EpisodeResult, OutcomeCounts, RolloutSummary } from '../streams/events.ts';
import type { Split } from '../envs/contract.ts';

export interface SummaryInput {
  readonly env: string;
  readonly split: Split;
  readonly agent: string;
  readonly seed: number;
  /** One result per settled slot, in any order (`episodeResult` of each slot's last attempt). */
  readonly settled: readonly EpisodeResult[];
  readonly attempts: number;
  /** Task slots the run was given; default the settled ones (a run that was not stopped settles them all). */
  readonly slots?: number;
  /** Aborted attempts by reason, retried ones included; default the settled slots' aborts only. */
  readonly abortReasons?: Readonly<Record<string, number>>;
  readonly steps: number;
  readonly horizon: number;
  readonly wallSeconds: number;
  readonly ledger: LedgerCounts;
}

/**
 * What the summary keeps of a settled slot: a few numbers, not the episode's trajectory, so a long
 * rollout holds no observations in memory until its end.
 */
export function episodeResult(output: EpisodeOutput, attempts: number): EpisodeResult {
  return {
    slot: output.slot,
    taskId: output.taskId,
    outcome: output.outcome,
    reward: output.reward,
    turns: output.turns,
    maxTurns: output.maxTurns,
    attempts,
    ...(output.abortReason !== undefined ? { abortReason: output.abortReason } : {}),
  };
}

/** Aborts by reason among settled slots, for callers that did not count every attempt. */
function countReasons(results: readonly EpisodeResult[]): Record<string, number> {
  const reasons: Record<string, number> = {};
  for (const result of results) if (result.outcome === 'aborted') reasons[result.abortReason ?? 'unknown'] = (reasons[result.abortReason ?? 'unknown'] ?? 0) + 1;
  return reasons;
}

/**
 * Rates are over scored episodes (settled and not aborted): an infrastructure failure says
 * nothing about the agent, so it is never scored as a failure. What that leaves out is reported
 * beside the rate instead of hidden: `abortedShare` is the share of all given slots without a
 * scored outcome (aborted after their retries, or never settled because the run was stopped),
 * and `successRange` bounds the success rate of the full run whatever those slots would have
 * done. Early finishers cannot bias the rate either way: every slot settles before the summary
 * is made (or counts in `abortedShare`), so short successful episodes finishing first weigh
 * nothing extra.
 */
export function summarize(input: SummaryInput): RolloutSummary {
  if (input.ledger.started !== input.ledger.ended || input.ledger.violations > 0) {
    throw new Error(
      `ledger mismatch: ${input.ledger.started} episodes started, ${input.ledger.ended} ended, ${input.ledger.violations} violations`,
    );
  }
  return summaryOf(input);
}

/**
 * One summary of runs that each settled some of the same slots (a training step whose aborted
 * slots were collected again): each slot's result from the last run that settled it, its
 * attempts summed over the runs; attempts, aborts, steps and wall time summed.
 */
export function mergeSummaries(parts: readonly RolloutSummary[], slots: number): RolloutSummary {
  const first = parts[0];
  const last = parts.at(-1);
  if (first === undefined || last === undefined) throw new Error('mergeSummaries needs at least one summary');
  if (parts.length === 1 && first.slots === slots) return first;
  const bySlot = new Map<number, EpisodeResult>();
  const abortReasons: Record<string, number> = {};
  let attempts = 0;
  let steps = 0;
  let wallSeconds = 0;
  for (const part of parts) {
    for (const result of part.results) bySlot.set(result.slot, { ...result, attempts: (bySlot.get(result.slot)?.attempts ?? 0) + result.attempts });
    for (const [reason, count] of Object.entries(part.abortReasons)) abortReasons[reason] = (abortReasons[reason] ?? 0) + count;
    attempts += part.attempts;
    steps += part.stepsPerSecond * part.wallSeconds;
    wallSeconds += part.wallSeconds;
  }
  const { env, split, agent, seed } = first;
  return summaryOf({ env, split, agent, seed, settled: [...bySlot.values()], attempts, slots, abortReasons, steps: Math.round(steps), horizon: last.horizon, wallSeconds });
}

function summaryOf(input: Omit<SummaryInput, 'ledger'>): RolloutSummary {
  const results = [...input.settled].sort((a, b) => a.slot - b.slot);
  const outcomes: OutcomeCounts = { success: 0, failure: 0, truncated: 0, aborted: 0 };
  for (const result of results) outcomes[result.outcome] += 1;
  const scored = results.filter((result) => result.outcome !== 'aborted');
  const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const slots = input.slots ?? results.length;
  if (slots < results.length) throw new Error(`ledger mismatch: ${results.length} slots settled of ${slots} given`);
  const unscored = slots - scored.length;
  const abortReasons = input.abortReasons ?? countReasons(results);
  const abortedAttempts = Object.values(abortReasons).reduce((a, b) => a + b, 0);
  return {
    env: input.env,
    split: input.split,
    agent: input.agent,
    seed: input.seed,
    slots,
    episodes: results.length,
    attempts: input.attempts,
    abortedAttempts,
    abortReasons,
    successRate: scored.length === 0 ? 0 : outcomes.success / scored.length,
    abortedShare: slots === 0 ? 0 : unscored / slots,
    successRange: slots === 0 ? { low: 0, high: 0 } : { low: outcomes.success / slots, high: (outcomes.success + unscored) / slots },
    meanReward: mean(scored.map((result) => result.reward)),
    meanTurns: mean(scored.map((result) => result.turns)),
    outcomes,
    horizon: input.horizon,
    wallSeconds: input.wallSeconds,
    stepsPerSecond: input.wallSeconds > 0 ? input.steps / input.wallSeconds : 0,
    results,
  };
}
