/**
 * Symmetry relabeling: a random permutation, per episode, of words the env treats alike (BabyAI's
 * six colours, `EnvSpec.symmetries`). The policy reads the permuted observation and writes a
 * permuted action, which is mapped back before it reaches the env, so the env sees a valid
 * episode and the learner trains on exactly the tokens the policy saw and sampled (on-policy).
 *
 * Why: a from-scratch policy latches onto label priors. On BabyAI's level mix four of the 18
 * levels always ask for the red ball, and GRPO learned "pick the red one" instead of copying the
 * goal's colour; once the policy is deterministic, the groups it gets wrong all fail alike and
 * give no gradient to unlearn it. Under a random permutation a label carries no prior, so copying
 * is the only thing that pays (data augmentation in the sense of RAD / DrQ, on the env's own
 * symmetry).
 */
import { checkSymmetryGroups, type SymmetryGroups } from '../envs/contract.ts';
import { mixSeed, mulberry32 } from './rng.ts';

/** Distinguishes this stream of draws from the other users of the episode seed. */
const RELABEL_SALT = 0x5e1ab;

export class Relabeling {
  readonly #forward: ReadonlyMap<string, string>;
  readonly #backward: ReadonlyMap<string, string>;
  readonly #pattern: RegExp;

  /** The permutation drawn from `seed` (a Fisher–Yates shuffle per group). */
  constructor(groups: SymmetryGroups, seed: number) {
    checkSymmetryGroups(groups);
    const rng = mulberry32(mixSeed(seed, RELABEL_SALT));
    const forward = new Map<string, string>();
    const backward = new Map<string, string>();
    for (const group of groups) {
      const image = [...group];
      for (let i = image.length - 1; i > 0; i--) {
        const j = Math.floor(rng.next() * (i + 1));
        [image[i], image[j]] = [image[j] as string, image[i] as string];
      }
      group.forEach((word, i) => {
        forward.set(word, image[i] as string);
        backward.set(image[i] as string, word);
      });
    }
    this.#forward = forward;
    this.#backward = backward;
    // Words are \w+ (checkSymmetryGroups), so they need no escaping; longest first for alternation.
    const words = [...forward.keys()].sort((a, b) => b.length - a.length);
    this.#pattern = new RegExp(`\\b(?:${words.join('|')})\\b`, 'g');
  }

  /** Env text → what the policy reads. */
  forward(text: string): string {
    return text.replace(this.#pattern, (w) => this.#forward.get(w) ?? w);
  }

  /** The policy's text → what the env receives. */
  backward(text: string): string {
    return text.replace(this.#pattern, (w) => this.#backward.get(w) ?? w);
  }
}
