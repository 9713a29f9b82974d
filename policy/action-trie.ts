/**
 * Constrained and free-form action decoding.
 *
 * Constrained: the available actions, tokenized and each ended by `</act>`, form a trie; at each
 * step only the children of the current node may be sampled, so the decoded action is always one
 * of the available ones (returned as the env's own string, not re-decoded text).
 *
 * Free-form: any non-special token or `</act>`; at the token cap only `</act>` is allowed, so
 * every action ends. An invalid free-form action is passed on to the env as text.
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

/** Any ordinary token or `</act>`; only `</act>` once `maxTokens − 1` tokens are out. */
export class FreeFormDecoder implements ActionDecoder {
  readonly #tokens: number[] = [];
  readonly #open: readonly number[];
  #done = false;

  constructor(readonly vocabSize: number, readonly maxTokens: number) {
    if (maxTokens < 1) throw new Error('maxTokens must be ≥ 1');
    this.#open = [END_ACT_ID, ...Array.from({ length: vocabSize - NUM_SPECIAL }, (_, i) => NUM_SPECIAL + i)];
  }

  allowed(): readonly number[] {
    return this.#tokens.length >= this.maxTokens - 1 ? [END_ACT_ID] : this.#open;
  }

  advance(token: number): void {
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
