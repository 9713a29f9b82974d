/**
 * A finished episode and its policy's token record made a `TokenRecord` (token-record.ts). The
 * turns are cut out of the token sequence by the mask: each run of mask-1 ids is one reply, the
 * mask-0 ids before it are that turn's prompt. Any policy that keeps a `TokenTrajectory` (our
 * transformer, `hf:DIR`, `openai:MODEL --tokenizer hf:DIR`) is written the same way.
 */
import type { Split } from '../envs/contract.ts';
import type { TokenTrajectory } from '../policy/policy.ts';
import { TOKEN_RECORD_FORMAT, type TokenRecord, type TokenRecordTurn } from './token-record.ts';

/** What the record is made from: the episode as the run saw it, and the policy's trajectory. */
export interface TokenRecordInput {
  readonly env: string;
  readonly split: Split;
  readonly taskId: string;
  readonly group: number;
  readonly sample: number;
  readonly episodeId: string;
  readonly policy: { readonly name: string; readonly version: number };
  readonly horizon: number;
  readonly outcome: TokenRecord['outcome'];
  readonly reward: number;
  /** Each turn's action and reward, in order. */
  readonly turns: readonly { readonly action: string; readonly reward: number }[];
  /** The policy's record; `driftTurns` when the policy checked drift (a token-exact LLM). */
  readonly trajectory: TokenTrajectory & { readonly driftTurns?: readonly number[] };
}

interface Cut {
  readonly promptIds: number[];
  readonly responseIds: number[];
  readonly logProbs: number[];
}

/** The (prompt, reply) pairs of one window: a reply is a run of mask 1, its prompt the mask-0 ids before it. */
export function cutTurns(window: Pick<TokenTrajectory, 'tokens' | 'mask' | 'logProbs'>): Cut[] {
  const cuts: Cut[] = [];
  let prompt: number[] = [];
  let current: Cut | undefined;
  window.tokens.forEach((id, i) => {
    if (window.mask[i] === 1) {
      current ??= { promptIds: prompt, responseIds: [], logProbs: [] };
      current.responseIds.push(id);
      current.logProbs.push(window.logProbs[i] ?? 0);
    } else {
      if (current !== undefined) {
        cuts.push(current);
        current = undefined;
        prompt = [];
      }
      prompt.push(id);
    }
  });
  if (current !== undefined) cuts.push(current);
  return cuts;
}

/**
 * The token record of a finished episode from its policy's trajectory: turns cut at the mask,
 * each with its reward and action; throws naming the episode when its replies and turns disagree.
 *
 * @example
 * const record = tokenRecordOf({ ...where, turns: output.trajectory, trajectory: policy.release(output.episodeId)! });
 */
export function tokenRecordOf(input: TokenRecordInput): TokenRecord {
  const { trajectory } = input;
  const windows = trajectory.windows !== undefined && trajectory.windows.length > 0 ? trajectory.windows : [trajectory];
  const cuts = windows.flatMap((w) => cutTurns(w));
  if (cuts.length !== input.turns.length) {
    throw new Error(`episode ${input.episodeId}: its token record holds ${cuts.length} replies (runs of mask 1) but the episode played ${input.turns.length} turns`);
  }
  const drift = trajectory.driftTurns;
  const turns: TokenRecordTurn[] = cuts.map((cut, i) => ({
    ...cut,
    reward: input.turns[i]!.reward,
    action: input.turns[i]!.action,
    ...(drift !== undefined ? { drift: drift.includes(i) } : {}),
  }));
  const flat = (values: readonly number[]) => [...values];
  return {
    format: TOKEN_RECORD_FORMAT,
    version: 1,
    env: input.env,
    split: input.split,
    taskId: input.taskId,
    group: input.group,
    sample: input.sample,
    episodeId: input.episodeId,
    policy: { name: input.policy.name, version: input.policy.version },
    horizon: input.horizon,
    outcome: input.outcome,
    reward: input.reward,
    turns,
    tokens: flat(trajectory.tokens),
    mask: trajectory.mask.map((bit) => (bit === 1 ? 1 : 0)),
    logProbs: flat(trajectory.logProbs),
    ...(trajectory.windows !== undefined && trajectory.windows.length > 1
      ? { windows: trajectory.windows.map((w) => ({ tokens: flat(w.tokens), mask: w.mask.map((b) => (b === 1 ? 1 : 0) as 0 | 1), logProbs: flat(w.logProbs) })) }
      : {}),
    drift: drift !== undefined ? drift.length : null,
  };
}
