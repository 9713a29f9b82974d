/**
 * Sampling a token from one row of logits, with temperature, top-p (nucleus) and an optional
 * set of allowed tokens (constrained decoding), driven by a seeded generator.
 *
 * Which log-prob is returned. `logProb` is log softmax(logits / temperature)[token] over the
 * FULL vocabulary — before the allowed-token mask and before top-p truncation. That is the
 * policy distribution the learner differentiates: `Transformer.logProbsOf(tokens,
 * { temperature })` computes exactly this number for the same context, so at temperature 1 and
 * top-p 1 the PPO ratio of a fresh rollout is 1 (up to float error), and with another
 * temperature it is 1 when the learner uses the same temperature (verl's convention). The mask
 * and top-p only shape exploration: tokens outside the action grammar simply get less mass as
 * the policy learns which continuations pay. Temperature 0 means greedy (argmax over the
 * allowed tokens); its log-prob is then taken at temperature 1.
 *
 * `sampledLogProb` is the log-prob of the token under the distribution it was actually drawn
 * from: the softmax restricted to the allowed tokens and renormalised (then to the nucleus when
 * top-p < 1); 0 when the choice was forced (one allowed token) or greedy. At top-p 1 it is what
 * the learner's constrained scoring computes for the same position, because the learner rebuilds
 * the allowed sets with the sampler's own decoders (policy/action-trie.ts `actionDecoder`,
 * learner/allowed-tokens.ts).
 */
import type { Rng } from './rng.ts';

export interface SamplingOptions {
  /** Softmax temperature; 0 = greedy. */
  readonly temperature: number;
  /** Nucleus mass in (0, 1]; 1 disables top-p. */
  readonly topP: number;
}

export interface SampledToken {
  readonly token: number;
  /** log softmax(logits / temperature)[token] over the full vocabulary (see the module note). */
  readonly logProb: number;
  /** Log-prob under the distribution the token was drawn from (see the module note). */
  readonly sampledLogProb: number;
}

/** log Σ exp(x_i / t) over `logits` (all of them). */
function logSumExp(logits: Float32Array, t: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]! / t);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i]! / t - max);
  return max + Math.log(sum);
}

/** `logits`: one row [V]; `allowed`: token ids that may be sampled (undefined = all). */
export function sampleToken(logits: Float32Array, rng: Rng, options: SamplingOptions, allowed?: readonly number[]): SampledToken {
  const { temperature, topP } = options;
  if (!(temperature >= 0)) throw new Error(`temperature must be ≥ 0, got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new Error(`topP must be in (0, 1], got ${topP}`);
  const candidates = allowed ?? Array.from({ length: logits.length }, (_, i) => i);
  if (candidates.length === 0) throw new Error('sampleToken: no allowed token');
  const t = temperature === 0 ? 1 : temperature;
  const logZ = logSumExp(logits, t);
  const logProbOf = (token: number): number => logits[token]! / t - logZ;

  if (temperature === 0 || candidates.length === 1) {
    let best = candidates[0]!;
    for (const c of candidates) if (logits[c]! > logits[best]!) best = c;
    return { token: best, logProb: logProbOf(best), sampledLogProb: 0 };
  }

  // Sampling distribution: the full-vocabulary softmax restricted to `candidates`, renormalised.
  const weights = candidates.map((c) => Math.exp(logProbOf(c)));
  let order = candidates.map((_, i) => i);
  if (topP < 1) {
    order.sort((a, b) => weights[b]! - weights[a]! || candidates[a]! - candidates[b]!);
    const total = weights.reduce((a, b) => a + b, 0);
    let mass = 0;
    let keep = 0;
    while (keep < order.length && mass < topP * total) mass += weights[order[keep++]!]!;
    order = order.slice(0, Math.max(1, keep));
  }
  const total = order.reduce((a, i) => a + weights[i]!, 0);
  // log(weight / total) from the log-probs, so a tiny weight keeps its precision.
  const drawn = (i: number): SampledToken => {
    const token = candidates[i]!;
    return { token, logProb: logProbOf(token), sampledLogProb: logProbOf(token) - Math.log(total) };
  };
  let u = rng.next() * total;
  for (const i of order) {
    u -= weights[i]!;
    if (u < 0) return drawn(i);
  }
  // Float round-off left u ≥ 0 after the last term: take the last kept candidate.
  return drawn(order[order.length - 1]!);
}
