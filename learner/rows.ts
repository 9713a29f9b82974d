/**
 * From a step's episodes to training rows with advantages.
 *
 * Rows. Every context window of every trained episode is one row (policy/context-window.ts:
 * each sampled token has mask 1 in exactly one window), so every decision is trained once, in
 * the context it was sampled from.
 *
 * What is trained. Aborted episodes never (infrastructure, not the agent). For GRPO and RLOO a
 * group left with fewer than 2 finished members (its siblings aborted) is dropped: with no
 * baseline its advantage is 0 (verl's GRPO would use the raw reward, unbaselined). With
 * `dropUninformative`, GRPO/RLOO groups whose rewards are all equal are dropped too: their
 * advantage is exactly 0, so they would only spend compute on the KL and entropy terms.
 *
 * Advantages. Each episode becomes one *virtual* row for `estimateAdvantages`: its windows' masks
 * (and critic values) concatenated in order, the outcome reward on the last agent token of the
 * last window (algorithms/reward-placement.ts). The estimators only read masks, values, rewards
 * and groups, so this is exactly the multi-turn sequence the algorithms are written for:
 * GRPO/RLOO put the same sequence-level advantage on every window; GAE bootstraps from the value
 * of the next agent token even when it lives in the next window; REINFORCE++'s return runs
 * through all windows; whitening counts each agent token once. The result is scattered back.
 */
import { estimateAdvantages, type AdvantageArgs, type Algorithm } from '../algorithms/index.ts';
import type { TokenTrajectory } from '../policy/policy.ts';
import type { AllowedTokens, AllowedTokensBuilder } from './allowed-tokens.ts';
import type { CollectedEpisode } from './collected-step.ts';

export interface TrainingRow {
  readonly tokens: readonly number[];
  readonly mask: readonly number[];
  /** Sampling log-probs (token in, token out; full vocabulary, sampling.ts), 0 off-mask. */
  readonly oldLogProbs: readonly number[];
  /**
   * Log-probs under the distribution each token was drawn from (the allowed tokens only,
   * sampling.ts `sampledLogProb`), when the policy recorded them: asynchronous training's π_behav
   * with constrainedLoss (behaviour-correction.ts).
   */
  readonly sampledLogProbs?: readonly number[];
  /** Tokens constrained decoding allowed at each agent position (allowed-tokens.ts); none for free-form policies. */
  readonly allowed?: AllowedTokens;
  /** Index of the episode in `RowSet.episodes`. */
  readonly episode: number;
}

export interface RowSet {
  readonly rows: readonly TrainingRow[];
  /** The trained episodes, in step order. */
  readonly episodes: readonly CollectedEpisode[];
  /** Groups that had reward variance (the ones GRPO/RLOO learn from). */
  readonly groupsWithSignal: number;
  readonly groups: number;
}

const isGroupAlgo = (algo: Algorithm): boolean => algo === 'grpo' || algo === 'rloo';

export function selectRows(
  episodes: readonly CollectedEpisode[],
  algo: Algorithm,
  dropUninformative: boolean,
  /** The policy's action decoding; undefined for a free-form policy (an LLM's reply is not constrained). */
  allowed: AllowedTokensBuilder | undefined,
): RowSet {
  const finished = episodes.filter((e) => e.output.outcome !== 'aborted' && e.record !== undefined);
  const byGroup = new Map<number, CollectedEpisode[]>();
  for (const e of finished) byGroup.set(e.group, [...(byGroup.get(e.group) ?? []), e]);
  let groupsWithSignal = 0;
  const keep = new Set<CollectedEpisode>();
  for (const members of byGroup.values()) {
    const rewards = members.map((e) => e.output.reward);
    const signal = members.length >= 2 && rewards.some((r) => r !== rewards[0]);
    if (signal) groupsWithSignal += 1;
    if (isGroupAlgo(algo) && (members.length < 2 || (dropUninformative && !signal))) continue;
    members.forEach((e) => keep.add(e));
  }
  const kept = finished.filter((e) => keep.has(e));
  const rows: TrainingRow[] = [];
  kept.forEach((e, episode) => {
    const windows = windowsOf(e);
    const sets = allowed?.forEpisode(windows, e.record?.availableActions ?? []);
    windows.forEach((w, i) => rows.push({
      tokens: w.tokens, mask: w.mask, oldLogProbs: w.logProbs,
      ...(w.sampledLogProbs ? { sampledLogProbs: w.sampledLogProbs } : {}),
      ...(sets ? { allowed: sets[i]! } : {}),
      episode,
    }));
  });
  return { rows, episodes: kept, groupsWithSignal, groups: byGroup.size };
}

function windowsOf(e: CollectedEpisode): readonly TokenTrajectory[] {
  const record = e.record?.trajectory;
  if (record === undefined) return [];
  return record.windows.length > 0 ? record.windows : [record];
}

export interface RowAdvantages {
  readonly advantages: readonly Float32Array[];
  readonly returns: readonly Float32Array[];
}

/**
 * Advantages and returns per row (0 off-mask). `values` / `refLogProbs` are per row, aligned
 * with the tokens (learner scoring, score.ts); `values` is needed for PPO only.
 */
export function rowAdvantages(
  set: RowSet,
  algo: Algorithm,
  perRow: { readonly values?: readonly Float32Array[]; readonly refLogProbs?: readonly Float32Array[] },
  args: Partial<AdvantageArgs> = {},
): RowAdvantages {
  const { rows, episodes } = set;
  const B = episodes.length;
  // Offsets of each row inside its episode's virtual row.
  const lengths = new Array<number>(B).fill(0);
  const offsets = rows.map((row) => {
    const at = lengths[row.episode]!;
    lengths[row.episode] = at + row.tokens.length;
    return at;
  });
  const T = Math.max(1, ...lengths);
  const mask = new Float32Array(B * T);
  const values = perRow.values ? new Float32Array(B * T) : undefined;
  const oldLogProbs = new Float32Array(B * T);
  const refLogProbs = perRow.refLogProbs ? new Float32Array(B * T) : undefined;
  rows.forEach((row, r) => {
    const base = row.episode * T + offsets[r]!;
    mask.set(row.mask, base);
    oldLogProbs.set(row.oldLogProbs, base);
    values?.set(perRow.values![r]!, base);
    refLogProbs?.set(perRow.refLogProbs![r]!, base);
  });
  const result = estimateAdvantages(algo, {
    batchSize: B,
    seqLen: T,
    mask,
    rewards: episodes.map((e) => e.output.reward),
    groupIds: episodes.map((e) => e.group),
    oldLogProbs,
    ...(values ? { values } : {}),
    ...(refLogProbs ? { refLogProbs } : {}),
  }, args);
  const slice = (flat: Float32Array, r: number): Float32Array => {
    const base = rows[r]!.episode * T + offsets[r]!;
    return flat.slice(base, base + rows[r]!.tokens.length);
  };
  return {
    advantages: rows.map((_, r) => slice(result.advantages, r)),
    returns: rows.map((_, r) => slice(result.returns, r)),
  };
}
