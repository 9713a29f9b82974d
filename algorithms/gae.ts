/**
 * GAE for PPO (Schulman et al. 2016) over the AGENT TOKENS ONLY.
 *
 * Walking each sequence right to left, visiting agent tokens t (mask == 1) only:
 *
 *   δ_t = r_t + γ·V_next − V_t          V_next: value at the next AGENT token, 0 after the last
 *   A_t = δ_t + γλ·A_next
 *   returns_t = A_t + V_t
 *
 * An observation between two actions is skipped: the value of the first token of the next
 * action bootstraps across the gap, and γ, λ count agent tokens, not observation tokens. This is
 * what verl's current `compute_gae_advantage_return` does ("skip values and TD-error on
 * observation tokens"); values and rewards at masked positions are never read. The episode
 * ends after its last agent token (no bootstrap past it; a truncated episode is trained on the
 * reward so far, docs/architecture.md, "One episode").
 *
 * Defaults γ = λ = 1 as the paper's released scripts, so A_t = R − V_t and returns_t = R: the
 * critic regresses every agent token on the outcome. Advantages are then whitened over every
 * agent token of the batch (verl always does; `normAdvantages: false` turns it off); returns are
 * computed before whitening. Off-mask positions are 0 in both outputs.
 */
import { AlgorithmError, checkBatch } from './batch.ts';
import type { AdvantageInput, AdvantageResult } from './batch.ts';
import { placeOutcomeRewards } from './reward-placement.ts';
import { maskedWhiten } from './whiten.ts';

// ---------------------------------------------------------------------------------------------
// Args
// ---------------------------------------------------------------------------------------------

export type GaeArgs = {
  /** discount per agent token (paper's scripts: 1) */
  gamma: number;
  /** GAE λ, bias/variance trade-off of the advantage (paper's scripts: 1) */
  lambda: number;
  /** whiten advantages over all agent tokens of the batch (verl: always) */
  normAdvantages: boolean;
};

export const gaeDefaults: GaeArgs = { gamma: 1, lambda: 1, normAdvantages: true };

// ---------------------------------------------------------------------------------------------
// Algorithm
// ---------------------------------------------------------------------------------------------

/** GAE from token-level rewards [B·T] and critic values [B·T]; masked positions are skipped. */
export function gaeFromTokenRewards(
  tokenRewards: ArrayLike<number>,
  values: ArrayLike<number>,
  mask: ArrayLike<number>,
  shape: { batchSize: number; seqLen: number },
  args: Partial<GaeArgs> = {},
): AdvantageResult {
  const { gamma, lambda, normAdvantages } = { ...gaeDefaults, ...args };
  const { batchSize: B, seqLen: T } = shape;
  const advantages = new Float32Array(B * T);
  const returns = new Float32Array(B * T);

  // --- backward recursion over agent tokens --------------------------------------------------
  for (let b = 0; b < B; b++) {
    let nextValue = 0;
    let nextAdvantage = 0;
    for (let t = T - 1; t >= 0; t--) {
      const i = b * T + t;
      if (mask[i] !== 1) continue; // observation / instruction / padding
      const value = values[i] as number;
      const delta = (tokenRewards[i] as number) + gamma * nextValue - value;
      nextAdvantage = delta + gamma * lambda * nextAdvantage;
      nextValue = value;
      advantages[i] = nextAdvantage;
      returns[i] = nextAdvantage + value;
    }
  }

  // --- optional whitening ----------------------------------------------------------------------
  return { advantages: normAdvantages ? maskedWhiten(advantages, mask) : advantages, returns };
}

/** GAE advantages and returns [B·T] for a batch; needs `batch.values`. */
export function gaeAdvantages(batch: AdvantageInput, args: Partial<GaeArgs> = {}): AdvantageResult {
  checkBatch(batch);
  if (!batch.values) throw new AlgorithmError('ALGO_MISSING_INPUT', 'GAE (ppo) needs critic values in batch.values');
  return gaeFromTokenRewards(placeOutcomeRewards(batch), batch.values, batch.mask, batch, args);
}
