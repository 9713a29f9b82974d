/**
 * `HfPolicy`: a Hugging Face causal LM (policy/hf/) as an agent, prompted by the env's
 * `PromptTemplate` as the LLM policy over HTTP is (policy/llm/llm-policy.ts: the same opening,
 * turns and reply reading). Token in, token out: it keeps every id of each episode and hands them
 * back on `release` for the learner.
 *
 * Each episode is one conversation in an `HfDecodingSession` (policy/hf/session/), which keeps its
 * KV cache across turns: turn 0 opens it with the chat template's render; each later turn appends
 * only the ids the template adds (chat-episode.ts), so a turn costs its new tokens. Requests that
 * arrive together (`concurrent = false`) are decided in one `session.decide`; each episode samples
 * with its own generator seeded by its request's seed, so its replies do not depend on its batch.
 *
 * A reply that names no action is the model's fault: the env gets an action it rejects (the turn
 * counts) and the model is told why on its next turn. A reply cut by maxNewTokens without a stop
 * id is parsed as it is.
 *
 * Context: when an episode's next turn (its conversation, the new user turn and a reply of up to
 * maxNewTokens) would pass the context window, its decision is `exhausted` (nothing is decoded for
 * it): the episode ends `truncated` with the reward so far, like a horizon, and its record holds
 * the turns it played. The other episodes of the batch are decided as usual.
 */
import type { PromptTemplate } from '../../../envs/contract.ts';
import type { LlmUsage } from '../../llm/chat-types.ts';
import { UsageMeter } from '../../llm/usage-meter.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from '../../policy.ts';
import type { HfCausalLm } from '../causal-lm.ts';
import { HfDecodingSession, HfSessionError, type Reply, type SessionOptions } from '../session/index.ts';
import type { HfTokenizer } from '../tokenizer/index.ts';
import { ChatEpisode } from './chat-episode.ts';
import { HfPolicyError } from './hf-policy-error.ts';

export interface HfPolicyOptions {
  readonly model: HfCausalLm;
  readonly tokenizer: HfTokenizer;
  /** The env's prompt and reply rules (`promptOf(definition)`, envs/contract.ts). */
  readonly prompt: PromptTemplate;
  /** As summaries and records name the policy (`hf:Qwen2.5-0.5B-Instruct`). */
  readonly name: string;
  /** Sampling temperature, 0 = greedy (default 1). */
  readonly temperature?: number;
  /** Nucleus sampling mass (default 1: the whole distribution). */
  readonly topP?: number;
  /** Most tokens of one reply (default 256); a reply cut there is parsed as it is. */
  readonly maxNewTokens?: number;
  /** Most tokens of one episode (default and cap: the model's max_position_embeddings). */
  readonly contextWindow?: number;
  /** Most tokens cached over all open episodes (default unbounded). */
  readonly maxCachedTokens?: number;
  /** Version of the weights (default 0); `setModel` changes it. */
  readonly version?: number;
}

interface Open {
  readonly chat: ChatEpisode;
  /** Ids the episode holds. */
  length: number;
}

interface Prepared {
  readonly request: ActRequest;
  readonly open: Open;
  readonly ids: number[];
}

export class HfPolicy implements Policy {
  readonly name: string;
  readonly concurrent = false;
  #model: HfCausalLm;
  #version: number;
  #session: HfDecodingSession;
  readonly #episodes = new Map<string, Open>();
  readonly #sessionOptions: SessionOptions;
  readonly #decide: { temperature: number; topP: number; maxNewTokens: number; stopIds: readonly number[] };
  readonly #usage = new UsageMeter();
  /** Episodes released while their batch was being decided: closed when it ends. */
  readonly #closeLater = new Set<string>();

  constructor(private readonly options: HfPolicyOptions) {
    this.name = options.name;
    this.#model = options.model;
    this.#version = options.version ?? 0;
    this.#sessionOptions = {
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
      ...(options.maxCachedTokens !== undefined ? { maxCachedTokens: options.maxCachedTokens } : {}),
    };
    this.#session = new HfDecodingSession(options.model, this.#sessionOptions);
    this.#decide = {
      temperature: options.temperature ?? 1,
      topP: options.topP ?? 1,
      maxNewTokens: options.maxNewTokens ?? 256,
      stopIds: options.tokenizer.stopIds,
    };
  }

  get version(): number {
    return this.#version;
  }

  /** The weights that decide now. The policy does not own them: whoever loaded them disposes them. */
  get model(): HfCausalLm {
    return this.#model;
  }

  /** Most tokens one episode may hold. */
  get contextWindow(): number {
    return this.#session.contextWindow;
  }

  /** Episodes whose caches are held (setModel needs none). */
  get openEpisodes(): string[] {
    return this.#session.openEpisodes.filter((id) => !this.#closeLater.has(id));
  }

  /** Swaps in new weights (the trainer, between steps). Refused while an episode is open: its cache came from the old weights. */
  setModel(model: HfCausalLm, version: number): void {
    const open = this.#session.openEpisodes;
    if (open.length > 0) throw new HfPolicyError('HF_POLICY_EPISODES_OPEN', `setModel with ${open.length} episode(s) open (${open.slice(0, 3).join(', ')}); release them first`);
    this.#session = new HfDecodingSession(model, this.#sessionOptions);
    this.#model = model;
    this.#version = version;
  }

  async act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    for (const _ of batch) this.#usage.attemptStarted();
    try {
      const decisions = await this.#act(batch);
      for (const d of decisions) {
        if (d.usage) this.#usage.succeeded({ ...d.usage, content: d.usage.reply });
        else this.#usage.failed(0);
      }
      return decisions;
    } catch (error) {
      for (const _ of batch) this.#usage.failed(0);
      throw error;
    } finally {
      for (const _ of batch) this.#usage.attemptEnded();
      for (const id of this.#closeLater) this.#session.close(id);
      this.#closeLater.clear();
    }
  }

  /**
   * Decisions and tokens as an LLM agent counts them (summaries, `--json`, eval's results.tokens):
   * a call is one request, its prompt the conversation it read, its latency its batch's decode,
   * `maxInFlight` the largest batch.
   */
  usage(): LlmUsage {
    return this.#usage.usage();
  }

  async #act(batch: readonly ActRequest[]): Promise<Decision[]> {
    const prepared = batch.map((request) => this.#prepare(request));
    // An episode whose next turn cannot fit ends there (truncated), the others are decided.
    const full = new Map(prepared.map((p) => [p, this.#contextFull(p)] as const).filter(([, why]) => why !== undefined) as [Prepared, string][]);
    const live = prepared.filter((p) => !full.has(p));
    for (const p of live) {
      if (p.request.turn === 0) this.#session.open(p.request.episodeId, p.ids, p.request.seed);
      else this.#session.extend(p.request.episodeId, p.ids);
      p.open.length += p.ids.length;
    }
    const started = performance.now();
    const replies = live.length > 0 ? await this.#session.decide(live.map((p) => p.request.episodeId), this.#decide) : [];
    const latencyMs = performance.now() - started;
    const decided = new Map(live.map((p, i) => [p, this.#decision(p, replies[i]!, latencyMs)] as const));
    return prepared.map((p) => decided.get(p) ?? { action: '', exhausted: full.get(p)! });
  }

  /** The new user turn's ids; turn 0 (re)opens the episode. */
  #prepare(request: ActRequest): Prepared {
    if (request.turn === 0) {
      if (this.#episodes.has(request.episodeId)) this.release(request.episodeId);
      const open: Open = { chat: new ChatEpisode(this.options.tokenizer, this.options.prompt), length: 0 };
      this.#episodes.set(request.episodeId, open);
      return { request, open, ids: open.chat.open(request) };
    }
    const open = this.#episodes.get(request.episodeId);
    if (open === undefined) throw new HfPolicyError('HF_POLICY_UNKNOWN_EPISODE', `episode ${request.episodeId} asks for turn ${request.turn} but was never opened at turn 0 (or was released)`);
    return { request, open, ids: open.chat.next(request) };
  }

  /** Why the episode's next turn cannot fit its context window, or undefined when it fits. */
  #contextFull(p: Prepared): string | undefined {
    const needed = p.open.length + p.ids.length + this.#decide.maxNewTokens;
    if (needed <= this.#session.contextWindow) return undefined;
    return `context full: ${p.open.length} tokens held, ${p.ids.length} of the new turn and a reply of up to ${this.#decide.maxNewTokens} ` +
      `pass the context window of ${this.#session.contextWindow} tokens (give a larger context window or fewer turns, --horizon)`;
  }

  #decision(p: Prepared, reply: Reply, latencyMs: number): Decision {
    const promptTokens = p.open.length;
    p.open.length += reply.tokens.length;
    const read = p.open.chat.reply(reply.tokens, reply.finish === 'stop');
    return {
      action: read.action,
      tokenIds: reply.tokens,
      logProbs: reply.logProbs,
      usage: {
        promptTokens,
        completionTokens: reply.tokens.length,
        latencyMs,
        retries: 0,
        reply: read.text,
        ...(read.formatError !== undefined ? { formatError: read.formatError } : {}),
      },
    };
  }

  /**
   * Ends the episode: frees its cache and returns every id of the conversation, mask 1 exactly on
   * the sampled reply ids (each reply's stop id included), their sampling log-probs (0 elsewhere).
   * An episode released while its batch is being decided (its deadline passed) gets the record so
   * far; its cache is freed when the batch ends.
   */
  release(episodeId: string): TokenTrajectory | undefined {
    if (!this.#episodes.delete(episodeId)) return undefined;
    if (!this.#session.openEpisodes.includes(episodeId)) return undefined;
    const transcript = this.#session.transcript(episodeId);
    try {
      this.#session.close(episodeId);
    } catch (error) {
      // The episode ended (its deadline passed) while its batch is being decided.
      if (!(error instanceof HfSessionError && error.code === 'SESSION_EPISODE_BUSY')) throw error;
      this.#closeLater.add(episodeId);
    }
    const mask = new Array<number>(transcript.tokens.length).fill(0);
    const logProbs = new Array<number>(transcript.tokens.length).fill(0);
    for (const reply of transcript.replies) {
      reply.tokens.forEach((_, j) => {
        mask[reply.start + j] = 1;
        logProbs[reply.start + j] = reply.logProbs[j]!;
      });
    }
    return { tokens: transcript.tokens, mask, logProbs };
  }

  /** Closes every episode (their caches are freed); the model is left to its owner. */
  dispose(): void {
    this.#session.dispose();
    this.#episodes.clear();
  }
}
