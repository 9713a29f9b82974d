/**
 * The tokens constrained decoding allowed at each agent position, rebuilt from each turn's
 * action list: the same action trie the policy decoded with (policy/action-trie.ts), walked along
 * the tokens it sampled. The learner scores the constrained distribution with them
 * (policy/transformer/constrained-log-probs.ts).
 *
 * Turns line up with windows: each sampled action is one run of mask-1 tokens, and every run
 * appears in exactly one window (policy/context-window.ts), so the runs of all windows in order
 * are turns 0, 1, 2, …
 */
import { ActionTrie } from '../../policy/action-trie.ts';
import type { TokenTrajectory } from '../../policy/policy.ts';

/** Per window, per position: the allowed token ids, or undefined (unconstrained / not an agent token). */
export type AllowedTokens = (readonly number[] | undefined)[];

export class AllowedTokensBuilder {
  readonly #tries = new Map<string, ActionTrie>();

  constructor(readonly encode: (text: string) => number[]) {}

  #trie(actions: readonly string[]): ActionTrie {
    const key = actions.join('\u0000');
    let trie = this.#tries.get(key);
    if (trie === undefined) {
      trie = new ActionTrie(actions, this.encode);
      this.#tries.set(key, trie);
    }
    return trie;
  }

  forEpisode(windows: readonly TokenTrajectory[], turns: readonly (readonly string[] | undefined)[]): AllowedTokens[] {
    let turn = 0;
    return windows.map((w) => {
      const allowed: AllowedTokens = new Array(w.tokens.length).fill(undefined);
      let decoder: ReturnType<ActionTrie['decoder']> | undefined;
      for (let t = 0; t < w.tokens.length; t++) {
        if (w.mask[t] !== 1) continue;
        if (t === 0 || w.mask[t - 1] !== 1) {
          const actions = turns[turn];
          decoder = actions !== undefined && actions.length > 0 ? this.#trie(actions).decoder() : undefined;
          turn += 1;
        }
        if (decoder === undefined) continue;
        allowed[t] = decoder.allowed();
        decoder.advance(w.tokens[t]!);
      }
      return allowed;
    });
  }
}
