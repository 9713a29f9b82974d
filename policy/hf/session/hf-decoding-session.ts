/**
 * Per-episode decoding with a kept KV cache, for multi-turn episodes decided in batches (the
 * agent actor gathers concurrent episodes' decide requests into one call).
 *
 * Each open episode holds the keys/values of every token the model has read so far (its own
 * [1, kvHeads, n, headDim] tensors per layer) and the ids it has been given but not yet read
 * (`pending`: the prompt after `open`, then the reply's last sampled token plus each observation
 * appended with `extend`). `decide` lines the chosen episodes' caches up in one batch
 * (kv-cache.ts `assemble`), reads every episode's pending ids in one ragged forward (`extendStep`),
 * decodes one token per live episode until a stop id or `maxNewTokens`, and copies each
 * episode's cache back out as it finishes. So turn k costs its new tokens, not the conversation.
 *
 * Token in, token out: every id of the conversation and every reply's ids and per-token log-probs
 * (policy/sampling.ts convention) are kept (`transcript`). Each episode samples with its own
 * seeded generator, so its tokens do not depend on which episodes share its batches.
 *
 * Bounds: an episode's tokens (read + pending + the reply's maxNewTokens) may not pass
 * `contextWindow` (default and cap: max_position_embeddings); the tokens of all open episodes may
 * not pass `maxCachedTokens` (default: unbounded). Both are refused with an `HfSessionError`
 * before anything changes; nothing is evicted behind the caller's back.
 */
import * as tf from '@tensorflow/tfjs-core';

import { mulberry32, type Rng } from '../../rng.ts';
import { sampleToken, type SamplingOptions } from '../../sampling.ts';
import type { KvPair } from '../attention.ts';
import type { HfCausalLm } from '../causal-lm.ts';
import { KvCache } from '../kv-cache.ts';
import { HfSessionError } from './session-error.ts';

export interface SessionOptions {
  /** Most tokens one episode may hold; default and cap max_position_embeddings. */
  readonly contextWindow?: number;
  /** Most tokens all open episodes may hold together (cache memory bound); default unbounded. */
  readonly maxCachedTokens?: number;
  /** Token id put in padding columns (never attended to); default 0. */
  readonly padId?: number;
}

export interface DecideOptions extends SamplingOptions {
  readonly maxNewTokens: number;
  /** Ids that end a reply (kept as its last token). */
  readonly stopIds?: readonly number[];
}

export interface Reply {
  readonly tokens: number[];
  /** log softmax(logits / temperature)[token] over the full vocabulary, per token. */
  readonly logProbs: number[];
  readonly finish: 'stop' | 'length';
}

export interface Transcript {
  /** Every id of the conversation in order: prompt, replies, observations. */
  readonly tokens: readonly number[];
  /** Each reply with its start index in `tokens`. */
  readonly replies: readonly (Reply & { readonly start: number })[];
  /** Tokens whose keys/values are cached. */
  readonly cachedTokens: number;
}

interface Episode {
  prefix: KvPair[] | undefined;
  cached: number;
  pending: number[];
  readonly tokens: number[];
  readonly replies: (Reply & { start: number })[];
  readonly rng: Rng;
  busy: boolean;
}

export class HfDecodingSession {
  private readonly episodes = new Map<string, Episode>();
  readonly contextWindow: number;
  readonly maxCachedTokens: number;
  private readonly padId: number;

  constructor(
    readonly model: HfCausalLm,
    options: SessionOptions = {},
  ) {
    const limit = model.config.maxPositionEmbeddings;
    this.contextWindow = Math.min(options.contextWindow ?? limit, limit);
    if (!(this.contextWindow >= 1)) throw new HfSessionError('SESSION_BAD_REQUEST', undefined, `contextWindow must be ≥ 1, got ${options.contextWindow}`);
    this.maxCachedTokens = options.maxCachedTokens ?? Infinity;
    this.padId = options.padId ?? 0;
  }

  /** Tokens held (read or pending) by all open episodes. */
  get heldTokens(): number {
    let n = 0;
    for (const e of this.episodes.values()) n += e.cached + e.pending.length;
    return n;
  }

  get openEpisodes(): string[] {
    return [...this.episodes.keys()];
  }

  /** Starts an episode from its prompt ids; `seed` seeds its sampler for every turn. */
  open(episodeId: string, promptIds: readonly number[], seed = 0): void {
    if (this.episodes.has(episodeId)) throw new HfSessionError('SESSION_EPISODE_EXISTS', episodeId, 'is already open');
    if (promptIds.length === 0) throw new HfSessionError('SESSION_BAD_REQUEST', episodeId, 'the prompt is empty');
    this.checkContext(episodeId, promptIds.length, 'the prompt');
    this.checkCache(promptIds.length);
    this.episodes.set(episodeId, { prefix: undefined, cached: 0, pending: [...promptIds], tokens: [...promptIds], replies: [], rng: mulberry32(seed), busy: false });
  }

  /** Appends ids (the next observation turn) to an episode; they are read by its next decide. */
  extend(episodeId: string, ids: readonly number[]): void {
    const e = this.episode(episodeId);
    if (e.busy) throw new HfSessionError('SESSION_EPISODE_BUSY', episodeId, 'cannot be extended while it is being decided');
    this.checkContext(episodeId, e.cached + e.pending.length + ids.length, `${ids.length} more tokens`);
    this.checkCache(ids.length);
    e.pending.push(...ids);
    e.tokens.push(...ids);
  }

  /**
   * Decodes one reply for each episode, all in one batch; results in the order of `episodeIds`.
   * Refused as a whole (nothing changes) when an episode is unknown, busy, listed twice, or its
   * tokens plus `maxNewTokens` would pass the context window.
   */
  async decide(episodeIds: readonly string[], options: DecideOptions): Promise<Reply[]> {
    if (!(options.maxNewTokens >= 1)) throw new HfSessionError('SESSION_BAD_REQUEST', undefined, `maxNewTokens must be ≥ 1, got ${options.maxNewTokens}`);
    if (!(options.temperature >= 0) || !(options.topP > 0 && options.topP <= 1)) {
      throw new HfSessionError('SESSION_BAD_REQUEST', undefined, `temperature must be ≥ 0 and topP in (0, 1], got ${options.temperature} and ${options.topP}`);
    }
    if (new Set(episodeIds).size !== episodeIds.length) throw new HfSessionError('SESSION_BAD_REQUEST', undefined, `an episode is listed twice in [${episodeIds.join(', ')}]`);
    const episodes = episodeIds.map((id) => this.episode(id));
    for (const [i, e] of episodes.entries()) {
      if (e.busy) throw new HfSessionError('SESSION_EPISODE_BUSY', episodeIds[i], 'is already being decided');
      this.checkContext(episodeIds[i]!, e.cached + e.pending.length + options.maxNewTokens, `a reply of up to ${options.maxNewTokens} tokens`);
    }
    this.checkCache(episodes.length * options.maxNewTokens);
    if (episodes.length === 0) return [];
    for (const e of episodes) e.busy = true;
    try {
      return await this.decode(episodes, options);
    } finally {
      for (const e of episodes) e.busy = false;
    }
  }

  /** The conversation's ids and replies so far. */
  transcript(episodeId: string): Transcript {
    const e = this.episode(episodeId);
    return { tokens: [...e.tokens], replies: e.replies.map((r) => ({ ...r, tokens: [...r.tokens], logProbs: [...r.logProbs] })), cachedTokens: e.cached };
  }

  /** Ends an episode and frees its cache tensors. */
  close(episodeId: string): void {
    const e = this.episode(episodeId);
    if (e.busy) throw new HfSessionError('SESSION_EPISODE_BUSY', episodeId, 'cannot be closed while it is being decided');
    disposePrefix(e.prefix);
    this.episodes.delete(episodeId);
  }

  /** Closes every episode. */
  dispose(): void {
    for (const id of [...this.episodes.keys()]) this.close(id);
  }

  private async decode(episodes: readonly Episode[], options: DecideOptions): Promise<Reply[]> {
    const stop = new Set(options.stopIds ?? []);
    const out = episodes.map((): { tokens: number[]; logProbs: number[]; finish: Reply['finish'] } => ({ tokens: [], logProbs: [], finish: 'length' }));
    /** live[row] = index into `episodes` of cache row `row`. */
    let live = episodes.map((_, i) => i);
    const chunks = episodes.map((e) => e.pending);
    const cache = KvCache.assemble(episodes.map((e) => e.prefix));
    // The batch holds copies now: free the episodes' own prefixes, so the decode does not run
    // with two caches in memory. Should it fail before an episode finishes, that episode falls
    // back to re-reading its whole conversation on its next decide (see `forget`); its sampler
    // has moved on by the tokens drawn before the failure.
    for (const e of episodes) this.forget(e);
    let logits: tf.Tensor3D | undefined;
    try {
      const extend = cache.extendStep(chunks, this.padId);
      const first = this.model.forward(extend, cache.past, 'last');
      cache.advance(extend, first.kv);
      logits = first.logits;
      for (;;) {
        const vocab = logits.shape[2];
        const values = (await logits.data()) as Float32Array;
        logits.dispose();
        const next: number[] = [];
        const keep: number[] = [];
        for (const [row, index] of live.entries()) {
          const sampled = sampleToken(values.subarray(row * vocab, (row + 1) * vocab), episodes[index]!.rng, options);
          const reply = out[index]!;
          reply.tokens.push(sampled.token);
          reply.logProbs.push(sampled.logProb);
          const stopped = stop.has(sampled.token);
          if (stopped) reply.finish = 'stop';
          if (stopped || reply.tokens.length >= options.maxNewTokens) {
            this.finish(episodes[index]!, cache, row, reply);
          } else {
            keep.push(row);
            next.push(sampled.token);
          }
        }
        if (keep.length === 0) break;
        cache.keepRows(keep);
        live = keep.map((row) => live[row]!);
        const step = cache.nextStep(next);
        const result = this.model.forward(step, cache.past, 'last');
        cache.advance(step, result.kv);
        logits = result.logits;
      }
    } finally {
      if (logits !== undefined && !logits.isDisposed) logits.dispose();
      cache.dispose();
    }
    return out;
  }

  /** Drops an episode's cached prefix: every token it holds becomes pending (read again by its next decide). */
  private forget(e: Episode): void {
    disposePrefix(e.prefix);
    e.prefix = undefined;
    e.cached = 0;
    e.pending = [...e.tokens];
  }

  /**
   * Stores a finished row back on its episode: the cache now covers everything but the reply's
   * last token, which becomes the start of the next turn's pending ids.
   */
  private finish(e: Episode, cache: KvCache, row: number, reply: Reply): void {
    const prefix = cache.rowPrefix(row);
    disposePrefix(e.prefix);
    e.prefix = prefix;
    e.cached = cache.lengthOf(row);
    e.replies.push({ ...reply, start: e.tokens.length });
    e.tokens.push(...reply.tokens);
    e.pending = [reply.tokens[reply.tokens.length - 1]!];
  }

  private episode(episodeId: string): Episode {
    const e = this.episodes.get(episodeId);
    if (e === undefined) throw new HfSessionError('SESSION_UNKNOWN_EPISODE', episodeId, 'is not open');
    return e;
  }

  private checkContext(episodeId: string, tokens: number, what: string): void {
    if (tokens > this.contextWindow) {
      const bound = this.contextWindow === this.model.config.maxPositionEmbeddings ? `max_position_embeddings ${this.contextWindow}` : `the context window ${this.contextWindow}`;
      throw new HfSessionError('SESSION_CONTEXT_FULL', episodeId, `${what} would take it to ${tokens} tokens, past ${bound}`);
    }
  }

  private checkCache(adding: number): void {
    const total = this.heldTokens + adding;
    if (total > this.maxCachedTokens) throw new HfSessionError('SESSION_CACHE_FULL', undefined, `${adding} more tokens would make ${total} held by all episodes, past maxCachedTokens ${this.maxCachedTokens}`);
  }
}

function disposePrefix(prefix: readonly KvPair[] | undefined): void {
  if (prefix !== undefined) tf.dispose(prefix.flatMap((l) => [l.k, l.v]));
}
