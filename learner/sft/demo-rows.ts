/**
 * Demonstrations → training rows, through the RL code path: each demonstrated turn goes through
 * the run's FilteredPolicy (observation filter, hidden actions, relabeling) into a
 * TransformerPolicy context by `demonstrate`, which lays the tokens out exactly as sampling
 * would have (policy/context-window.ts) and records the demonstrated action tokens with mask 1.
 * The released record's windows and action lists then get their allowed-token sets from the
 * same AllowedTokensBuilder the learner uses (learner/allowed-tokens.ts). So behaviour
 * cloning trains the very positions, contexts and constrained distribution RL trains.
 */
import { recordOf, type FilteredPolicy } from '../../policy/observation-filter.ts';
import type { AllowedTokens, AllowedTokensBuilder } from '../allowed-tokens.ts';

/**
 * What SFT reads of a demonstration (demos/demo.ts's `Demo` has this shape): the seed and each
 * turn's observation, action list and action. Structural, so the learner needs no demos room.
 */
export interface DemoInput {
  readonly seed: number;
  readonly turns: readonly {
    readonly observation: string;
    readonly availableActions?: readonly string[] | undefined;
    readonly action: string;
  }[];
}

export interface SftRow {
  readonly tokens: readonly number[];
  /** 1 on the demonstrated action tokens trained in this window. */
  readonly mask: readonly number[];
  /** The constrained distribution's tokens at each trained position; none for a free-form policy (an LLM's reply). */
  readonly allowed?: AllowedTokens;
  /** Index of the demo in the input list. */
  readonly demo: number;
}

export interface DemoRows {
  readonly rows: readonly SftRow[];
  /** Demos turned into rows. */
  readonly used: number;
  /** Demos left out, with why (an action the policy cannot decode, or no turn at all). */
  readonly skipped: readonly { readonly demo: number; readonly reason: string }[];
  /** Free-form actions cut at the policy's action token cap. */
  readonly truncatedTurns: number;
  /** Trained (mask-1) tokens over all rows. */
  readonly agentTokens: number;
}

export function demoRows(demos: readonly DemoInput[], policy: FilteredPolicy, allowed: AllowedTokensBuilder): DemoRows {
  const rows: SftRow[] = [];
  const skipped: { demo: number; reason: string }[] = [];
  let truncatedTurns = 0;
  let agentTokens = 0;
  demos.forEach((demo, index) => {
    const episodeId = `demo-${index}`;
    let failure: string | undefined;
    for (const [turn, step] of demo.turns.entries()) {
      const [result] = policy.demonstrate([{
        episodeId, turn, seed: demo.seed, observation: step.observation, action: step.action,
        ...(step.availableActions !== undefined ? { availableActions: step.availableActions } : {}),
      }]);
      if (result === undefined || !result.recorded) {
        failure = `turn ${turn}: ${result && !result.recorded ? result.reason : 'not recorded'}`;
        break;
      }
      if (result.truncated) truncatedTurns += 1;
    }
    const record = recordOf(policy.release(episodeId));
    if (failure !== undefined || record === undefined) {
      skipped.push({ demo: index, reason: failure ?? 'no turns' });
      return;
    }
    const windows = record.trajectory.windows.length > 0 ? record.trajectory.windows : [record.trajectory];
    const sets = allowed.forEpisode(windows, record.availableActions);
    windows.forEach((w, i) => {
      rows.push({ tokens: w.tokens, mask: w.mask, allowed: sets[i]!, demo: index });
      agentTokens += w.mask.reduce((a, b) => a + b, 0);
    });
  });
  policy.clearRecords();
  return { rows, used: demos.length - skipped.length, skipped, truncatedTurns, agentTokens };
}
