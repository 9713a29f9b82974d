/**
 * The tokens the sampler allowed at each agent position, rebuilt from each turn's action list
 * with the policy's own decoder choice (`actionDecoder`, policy/action-trie.ts, from the policy's
 * `ActionDecoding`) walked along the tokens it sampled: the trie's continuations on a turn whose
 * env listed actions, the free-form set on any other turn (ordinary tokens and `</act>`, only
 * `</act>` at the token cap). The learner scores the softmax over exactly these sets
 * (policy/transformer/constrained-log-probs.ts), so its log-prob of every sampled token is the
 * sampler's, and a forced token (one allowed) scores 0 and carries no gradient.
 *
 * Turns line up with windows: each sampled action is one run of mask-1 tokens, and every run
 * appears in exactly one window (policy/context-window.ts), so the runs of all windows in order
 * are turns 0, 1, 2, …
 */
import { ActionTrie, actionDecoder, type ActionDecoder, type ActionDecoding } from '../policy/action-trie.ts';
import type { TokenTrajectory } from '../policy/policy.ts';

/** Per window, per position: the allowed token ids, or undefined (not an agent token). */
export type AllowedTokens = (readonly number[] | undefined)[];

export class AllowedTokensBuilder {
  readonly #tries = new Map<string, ActionTrie>();
  readonly #trieOf = (actions: readonly string[]): ActionTrie => {
    const key = actions.join('\u0000');
    let trie = this.#tries.get(key);
    if (trie === undefined) {
      trie = new ActionTrie(actions, this.decoding.encode);
      this.#tries.set(key, trie);
    }
    return trie;
  };

  /** `decoding`: the policy's (TransformerPolicy.actionDecoding). */
  constructor(readonly decoding: ActionDecoding) {}

  forEpisode(windows: readonly TokenTrajectory[], turns: readonly (readonly string[] | undefined)[]): AllowedTokens[] {
    let turn = 0;
    return windows.map((w) => {
      const allowed: AllowedTokens = new Array(w.tokens.length).fill(undefined);
      let decoder: ActionDecoder | undefined;
      for (let t = 0; t < w.tokens.length; t++) {
        if (w.mask[t] !== 1) continue;
        if (decoder === undefined || decoder.done || t === 0 || w.mask[t - 1] !== 1) {
          decoder = actionDecoder(turns[turn], this.decoding, this.#trieOf);
          turn += 1;
        }
        allowed[t] = decoder.allowed();
        decoder.advance(w.tokens[t]!);
      }
      return allowed;
    });
  }
}
