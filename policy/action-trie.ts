/**
 * Constrained and free-form action decoding.
 *
 * Constrained: the available actions, tokenized and each ended by `</act>`, form a trie; at each
 * step only the children of the current node may be sampled, so the decoded action is always one
 * of the available ones (returned as the env's own string, not re-decoded text).
 *
 * Free-form: any non-special token or `</act>`; at the token cap only `</act>` is allowed, so
 * every action ends. An invalid free-form action is passed on to the env as text.
 *
 * `actionDecoder` is the one place that decides which decoder a turn gets, and so which tokens
 * are allowed at each position: the policy samples through it, and the learner rebuilds the same
 * decoders from the recorded turns (learner/allowed-tokens.ts) to score exactly the
 * distribution each token was drawn from. A position with a single allowed token (the forced
 * `</act>` at the cap, a trie node with one child) then has log-prob 0 and carries no gradient.
 */
import { END_ACT_ID, NUM_SPECIAL } from './special-tokens.ts';

export interface ActionDecoder {
  /** Tokens that may come next; undefined = any token. */
  allowed(): readonly number[] | undefined;
  /** Records the sampled token. */
  advance(token: number): void;
  /** True once `</act>` has been sampled. */
  readonly done: boolean;
  /** The action text, given the decoder of token ids (for free-form). */
  action(decode: (ids: readonly number[]) => string): string;
  /** Longest number of tokens this decoder can emit (context budget). */
  readonly maxTokens: number;
}

/** The settings that, with a turn's action list, determine its decoder (`actionDecoder`). */
export interface ActionDecoding {
  /** Decode only the listed actions when the env lists some; free-form otherwise. */
  readonly constrained: boolean;
  /** An action's text as the ids the trie decodes (the tokenizer's encode, in the policy's word order). */
  readonly encode: (text: string) => number[];
  /** The tokenizer's vocabulary size: free-form actions use the ordinary ids below it. */
  readonly vocabSize: number;
  /** Free-form token cap, `</act>` included. */
  readonly maxActionTokens: number;
}

/** The default free-form cap: 24 tokens, at most a quarter of the context window. */
export const defaultMaxActionTokens = (maxContext: number): number => Math.min(24, Math.floor(maxContext / 4));

/**
 * The decoder of a turn whose env listed `actions` (undefined or empty: none). `trieOf` lets a
 * caller that builds many decoders reuse tries (the learner caches them per action list).
 */
export function actionDecoder(
  actions: readonly string[] | undefined,
  decoding: ActionDecoding,
  trieOf: (actions: readonly string[]) => ActionTrie = (list) => new ActionTrie(list, decoding.encode),
): ActionDecoder {
  return decoding.constrained && actions !== undefined && actions.length > 0
    ? trieOf(actions).decoder()
    : new FreeFormDecoder(decoding.vocabSize, decoding.maxActionTokens);
}

interface TrieNode {
  readonly children: Map<number, TrieNode>;
  /** The action string, on nodes reached by `</act>`. */
  action?: string;
}

export class ActionTrie {
  readonly root: TrieNode = { children: new Map() };
  /** Tokens on the longest path, including `</act>`. */
  readonly depth: number;

  constructor(actions: readonly string[], encode: (text: string) => number[]) {
    if (actions.length === 0) throw new Error('ActionTrie needs at least one action');
    let depth = 0;
    for (const action of actions) {
      const ids = [...encode(action), END_ACT_ID];
      depth = Math.max(depth, ids.length);
      let node = this.root;
      for (const id of ids) {
        let next = node.children.get(id);
        if (next === undefined) {
          next = { children: new Map() };
          node.children.set(id, next);
        }
        node = next;
      }
      // Two actions with the same tokens are the same action; keep the first spelling.
      node.action ??= action;
    }
    this.depth = depth;
  }

  decoder(): ActionDecoder {
    return new TrieDecoder(this);
  }
}

class TrieDecoder implements ActionDecoder {
  #node: TrieNode;
  readonly maxTokens: number;

  constructor(trie: ActionTrie) {
    this.#node = trie.root;
    this.maxTokens = trie.depth;
  }

  allowed(): readonly number[] {
    return [...this.#node.children.keys()];
  }

  advance(token: number): void {
    const next = this.#node.children.get(token);
    if (next === undefined) throw new Error(`token ${token} is not an allowed continuation`);
    this.#node = next;
  }

  get done(): boolean {
    return this.#node.action !== undefined;
  }

  action(): string {
    if (this.#node.action === undefined) throw new Error('action not finished');
    return this.#node.action;
  }
}

/** The ids a free-form action may use before its cap: `</act>` and every ordinary token (shared per vocabulary size). */
const openTokens = new Map<number, readonly number[]>();
function openTokensOf(vocabSize: number): readonly number[] {
  let open = openTokens.get(vocabSize);
  if (open === undefined) {
    open = [END_ACT_ID, ...Array.from({ length: vocabSize - NUM_SPECIAL }, (_, i) => NUM_SPECIAL + i)];
    // One or two vocabularies per process in practice; the bound only guards against misuse.
    if (openTokens.size >= 8) openTokens.clear();
    openTokens.set(vocabSize, open);
  }
  return open;
}

/** Any ordinary token or `</act>`; only `</act>` once `maxTokens − 1` tokens are out. */
export class FreeFormDecoder implements ActionDecoder {
  readonly #tokens: number[] = [];
  readonly #open: readonly number[];
  #done = false;

  constructor(readonly vocabSize: number, readonly maxTokens: number) {
    if (maxTokens < 1) throw new Error('maxTokens must be ≥ 1');
    this.#open = openTokensOf(vocabSize);
  }

  allowed(): readonly number[] {
    return this.#tokens.length >= this.maxTokens - 1 ? [END_ACT_ID] : this.#open;
  }

  advance(token: number): void {
    const ordinary = token >= NUM_SPECIAL && token < this.vocabSize && this.#tokens.length < this.maxTokens - 1;
    if (this.#done || (token !== END_ACT_ID && !ordinary)) throw new Error(`token ${token} is not an allowed continuation`);
    if (token === END_ACT_ID) this.#done = true;
    else this.#tokens.push(token);
  }

  get done(): boolean {
    return this.#done;
  }

  action(decode: (ids: readonly number[]) => string): string {
    return decode(this.#tokens).trim();
  }
}
