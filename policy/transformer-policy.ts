/**
 * `TransformerPolicy`: the tfjs transformer as a `Policy`. Each episode keeps its token context
 * (context-window.ts) and its KV cache; `act` appends every request's observation, prefills all of
 * them in one batched call, then decodes all actions together, one batched step per token, with
 * one host read per step. Sampled ids and their log-probs are recorded, token in, token out.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ActRequest, Decision, Policy } from './policy.ts';
import type { Tokenizer } from './tokenizer.ts';
import type { Transformer } from './transformer/transformer.ts';
import { disposeCache, type SequenceCache } from './transformer/kv-cache.ts';
import { EpisodeContext, type WindowedTrajectory } from './context-window.ts';
import { actionDecoder, defaultMaxActionTokens, FreeFormDecoder, type ActionDecoder, type ActionDecoding } from './action-trie.ts';
import { END_ACT_ID } from './special-tokens.ts';
import { sampleToken } from './sampling.ts';
import { actionEncoder, orderActionWords, type ActionWordOrder } from './action-words.ts';
import { turnRng, type Rng } from './rng.ts';

export interface TransformerPolicyOptions {
  /** Softmax temperature (default 1; 0 = greedy). */
  readonly temperature: number;
  /** Nucleus mass (default 1 = off). */
  readonly topP: number;
  /** Decode only the env's available actions when it lists them (default true). */
  readonly constrained: boolean;
  /** Token cap for a free-form action, `</act>` included (default min(24, maxContext / 4)). */
  readonly maxActionTokens: number;
  /** See context-window.ts (default 0.75). */
  readonly refillFraction: number;
  /** Past turns the model reads (context-window.ts; default: as many as fit). */
  readonly historyTurns?: number;
  /** With historyTurns: past turns keep their action only (context-window.ts). */
  readonly historyActionsOnly?: boolean;
  /** Tokens of the first observation kept as the instruction (default maxContext / 2). */
  readonly instructionTokens?: number;
  /** Order in which an action's words are decoded (action-words.ts; default as written). */
  readonly actionWords?: ActionWordOrder;
  readonly name: string;
}

const DEFAULTS: TransformerPolicyOptions = {
  temperature: 1, topP: 1, constrained: true, maxActionTokens: 24, refillFraction: 0.75, name: 'transformer',
};

/**
 * A request with its own sampling settings (the policy server's per-request `temperature` and
 * `top_p`); without them the policy's options apply.
 */
export interface TransformerActRequest extends ActRequest {
  readonly temperature?: number;
  readonly topP?: number;
}

/** A demonstrated turn (`demonstrate`): the request, and the action the demonstrator took. */
export interface DemonstratedRequest extends ActRequest {
  readonly action: string;
}

/**
 * What `demonstrate` made of one turn: recorded as sampled (`recorded`), or not decodable by this
 * policy — an action outside the env's list (constrained), or free text cut at the token cap.
 */
export type DemonstratedTurn = { readonly recorded: true; readonly truncated: boolean } | { readonly recorded: false; readonly reason: string };

/** A past turn replayed into an episode's context by `teacherForce`. */
export interface ForcedTurn {
  readonly observation: string;
  /** The actions the env listed at that turn (they set the turn's action budget, as in decoding). */
  readonly availableActions?: readonly string[];
  /** The action taken at that turn. */
  readonly action: string;
}

interface Episode {
  readonly context: EpisodeContext;
  cache: SequenceCache | undefined;
}

interface Work {
  readonly request: TransformerActRequest;
  readonly episode: Episode;
  readonly decoder: ActionDecoder;
  readonly rng: Rng;
  readonly ids: number[];
  readonly logProbs: number[];
  readonly sampledLogProbs: number[];
}

export class TransformerPolicy implements Policy {
  readonly name: string;
  readonly options: TransformerPolicyOptions;
  #version = 0;
  readonly #episodes = new Map<string, Episode>();
  readonly #actionWords: ActionWordOrder;
  /** How an action's text becomes the ids the trie decodes (action-words.ts). */
  readonly #encodeAction: (text: string) => number[];

  constructor(readonly model: Transformer, readonly tokenizer: Tokenizer, options: Partial<TransformerPolicyOptions> = {}) {
    const maxActionTokens = defaultMaxActionTokens(model.config.maxContext);
    this.options = { ...DEFAULTS, maxActionTokens, ...options };
    this.name = this.options.name;
    this.#actionWords = this.options.actionWords ?? 'as-written';
    this.#encodeAction = actionEncoder((text) => tokenizer.encode(text), this.#actionWords);
    if (tokenizer.vocabSize > model.config.vocabSize) {
      throw new Error(`tokenizer has ${tokenizer.vocabSize} tokens, the model only ${model.config.vocabSize}`);
    }
    const maxAction = this.options.maxActionTokens;
    if (!(Number.isInteger(maxAction) && maxAction >= 1 && maxAction <= model.config.maxContext / 4)) {
      throw new Error(`maxActionTokens must be an integer in [1, maxContext/4 = ${model.config.maxContext / 4}]`);
    }
  }

  get version(): number {
    return this.#version;
  }

  /** Episodes holding state (context and KV cache). */
  get liveEpisodes(): number {
    return this.#episodes.size;
  }

  async act(batch: readonly TransformerActRequest[]): Promise<readonly Decision[]> {
    if (batch.length === 0) return [];
    if (new Set(batch.map((r) => r.episodeId)).size !== batch.length) throw new Error('act: an episode appears twice in one batch');
    const work = batch.map((request) => this.#begin(request));
    const v = this.model.config.vocabSize;

    // Prefill everything new since each cache, for the whole batch at once.
    const pre = await this.model.prefill(
      work.map((w) => w.episode.cache),
      work.map((w) => w.episode.context.tokens.slice(w.episode.cache?.length ?? 0)),
    );
    work.forEach((w, i) => {
      disposeCache(w.episode.cache);
      w.episode.cache = pre.caches[i];
    });

    // Decode: sample for every live row, then one batched step for the rows still going.
    let rows = work.map((_, i) => i);
    let logits = pre.logits;
    const toDecode = rows.filter((i) => !this.#sample(work[i]!, logits.subarray(i * v, (i + 1) * v)));
    if (toDecode.length > 0) {
      const decoding = this.model.openDecode(toDecode.map((i) => ({ key: String(i), cache: work[i]!.episode.cache! })));
      rows = toDecode;
      while (rows.length > 0) {
        // Feed each live row its last sampled token; logits come back in the same row order.
        logits = await decoding.step(rows.map((i) => work[i]!.ids[work[i]!.ids.length - 1]!));
        const live: number[] = [];
        rows.forEach((i, r) => {
          if (this.#sample(work[i]!, logits.subarray(r * v, (r + 1) * v))) decoding.finish(String(i));
          else live.push(i);
        });
        rows = live;
      }
      for (const [key, cache] of decoding.close()) {
        const episode = work[Number(key)]!.episode;
        disposeCache(episode.cache);
        episode.cache = cache;
      }
    }

    return work.map((w) => {
      w.episode.context.appendAction(w.ids, w.logProbs, w.sampledLogProbs);
      return {
        action: w.decoder.action((ids) => orderActionWords(this.tokenizer.decode(ids, { skipSpecial: true }), this.#actionWords)),
        tokenIds: [...w.ids],
        logProbs: [...w.logProbs],
      };
    });
  }

  /** Samples one token for `w`; returns true when its action is complete. */
  #sample(w: Work, logits: Float32Array): boolean {
    const allowed = w.decoder.allowed();
    const { temperature, topP } = w.request;
    const options = temperature === undefined && topP === undefined
      ? this.options
      : { temperature: temperature ?? this.options.temperature, topP: topP ?? this.options.topP };
    const { token, logProb, sampledLogProb } = sampleToken(logits, w.rng, options, allowed);
    w.decoder.advance(token);
    w.ids.push(token);
    w.logProbs.push(logProb);
    w.sampledLogProbs.push(sampledLogProb);
    return w.decoder.done;
  }

  #begin(request: TransformerActRequest): Work {
    let episode = this.#episodes.get(request.episodeId);
    if (episode !== undefined && request.turn === 0 && episode.context.started) {
      // A reused id starting over: the old episode's state is dropped.
      this.release(request.episodeId);
      episode = undefined;
    }
    episode ??= this.#open(request.episodeId);
    const decoder = this.#decoderFor(request.availableActions);
    const { windowReset } = episode.context.beginTurn(this.tokenizer.encode(request.observation), decoder.maxTokens);
    if (windowReset) {
      disposeCache(episode.cache);
      episode.cache = undefined;
    }
    return { request, episode, decoder, rng: turnRng(request.seed, request.turn), ids: [], logProbs: [], sampledLogProbs: [] };
  }

  #open(episodeId: string): Episode {
    const episode: Episode = {
      context: new EpisodeContext({
        maxContext: this.model.config.maxContext,
        refillFraction: this.options.refillFraction,
        ...(this.options.historyTurns !== undefined ? { historyTurns: this.options.historyTurns } : {}),
        ...(this.options.historyActionsOnly ? { historyActionsOnly: true } : {}),
        ...(this.options.instructionTokens !== undefined ? { maxInstructionTokens: this.options.instructionTokens } : {}),
      }),
      cache: undefined,
    };
    this.#episodes.set(episodeId, episode);
    return episode;
  }

  /**
   * What decides each turn's decoder, hence the allowed tokens at each position; the learner
   * rebuilds the same decoders from it to score what was sampled (learner/allowed-tokens.ts).
   */
  get actionDecoding(): ActionDecoding {
    return { constrained: this.options.constrained, encode: this.#encodeAction, vocabSize: this.tokenizer.vocabSize, maxActionTokens: this.options.maxActionTokens };
  }

  #decoderFor(availableActions: readonly string[] | undefined): ActionDecoder {
    return actionDecoder(availableActions, this.actionDecoding);
  }

  /**
   * Rebuilds an episode from its past turns without decoding: each observation and the token ids
   * of each action (its `</act>` included) enter the context as decoding would have put them,
   * with the same action budget per turn, so window resets fall on the same turns. The next `act`
   * for `episodeId` (at turn `turns.length`) then reads the same context as if the episode had
   * been decoded live. The ids are exact for an action the env listed (constrained decoding
   * samples exactly its tokens); a free-form action is re-tokenized, which is the same ids when
   * the tokenizer's encoding of the decoded text is the one that was sampled. The replayed action
   * tokens are context, not samples: mask 0 in the episode's record. Any earlier state of
   * `episodeId` is dropped; the KV cache is built by the next `act`'s prefill.
   */
  teacherForce(episodeId: string, turns: readonly ForcedTurn[]): void {
    this.release(episodeId);
    const episode = this.#open(episodeId);
    for (const turn of turns) {
      const decoder = this.#decoderFor(turn.availableActions);
      episode.context.beginTurn(this.tokenizer.encode(turn.observation), decoder.maxTokens);
      episode.context.appendForcedAction(this.#actionIds(turn.action, decoder));
    }
  }

  /**
   * Behaviour cloning's input (actors/sft): each request's turn enters the episode's context
   * exactly as `act` would have put it, with the demonstrated action's tokens recorded as if
   * sampled (mask 1, log-prob 0), so `release` returns the windows, masks and layout RL trains on.
   * No model call is made. A constrained turn whose action is not among the listed ones cannot be
   * decoded by this policy: it is not recorded (`recorded: false`) and the episode should be
   * dropped, since its context would differ from any rollout's.
   */
  demonstrate(batch: readonly DemonstratedRequest[]): DemonstratedTurn[] {
    if (new Set(batch.map((r) => r.episodeId)).size !== batch.length) throw new Error('demonstrate: an episode appears twice in one batch');
    return batch.map((request) => {
      const { episode, decoder } = this.#begin(request);
      const ids = this.#actionIds(request.action, decoder);
      for (const id of ids) {
        const allowed = decoder.allowed();
        if (decoder.done || (allowed !== undefined && !allowed.includes(id))) {
          const reason = decoder instanceof FreeFormDecoder
            ? `"${request.action}" has a token free-form decoding cannot produce (outside the tokenizer's ordinary vocabulary)`
            : `"${request.action}" is not among the ${request.availableActions?.length ?? 0} listed actions`;
          return { recorded: false, reason };
        }
        decoder.advance(id);
      }
      const truncated = ids.length < this.#encodeAction(request.action).length + 1;
      episode.context.appendAction(ids, ids.map(() => 0));
      return { recorded: true, truncated };
    });
  }

  /** The ids decoding produces for `action` under `decoder` (see teacherForce). */
  #actionIds(action: string, decoder: ActionDecoder): number[] {
    const ids = this.#encodeAction(action);
    // A free-form action is cut where decoding would have had to end it.
    const cap = decoder instanceof FreeFormDecoder ? decoder.maxTokens - 1 : ids.length;
    return [...ids.slice(0, cap), END_ACT_ID];
  }

  /** The episode's current window (what the model reads next), or undefined when it holds no state. */
  contextTokens(episodeId: string): readonly number[] | undefined {
    return this.#episodes.get(episodeId)?.context.tokens;
  }

  /** Drops the episode's state; returns its windows (context-window.ts) when it acted. */
  release(episodeId: string): WindowedTrajectory | undefined {
    const episode = this.#episodes.get(episodeId);
    if (episode === undefined) return undefined;
    this.#episodes.delete(episodeId);
    disposeCache(episode.cache);
    return episode.context.trajectory();
  }

  /**
   * New weights (by parameter name) and their version. Every KV cache is dropped — it was
   * computed with the old weights — and rebuilt from the episode's tokens on its next turn.
   */
  setWeights(version: number, tensors: Readonly<Record<string, tf.Tensor>>): void {
    this.model.setWeights(tensors);
    this.#version = version;
    for (const episode of this.#episodes.values()) {
      disposeCache(episode.cache);
      episode.cache = undefined;
    }
  }

  /** Releases every episode's state (the model is not disposed). */
  dispose(): void {
    for (const id of [...this.#episodes.keys()]) this.release(id);
  }
}
