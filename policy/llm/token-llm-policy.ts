/**
 * `TokenLlmPolicy`: an LLM behind an OpenAI-compatible endpoint as an agent whose episodes are
 * token-exact (`--agent openai:MODEL --tokenizer hf:DIR`). The conversation is rendered here with
 * the model's own tokenizer and chat template, exactly as the Hugging Face agent holds it
 * (`ChatEpisode`, policy/hf/agent/chat-episode.ts): turn 0 is the template's render, each later
 * turn appends only the ids the template adds for the new observation, never a re-render of the
 * past. The prompt goes out as those ids on `/v1/completions`, and the sampled ids and their
 * log-probs come back (token-reply.ts), so the record (`release`) is what the model read and
 * sampled, id for id: mask 1 on the sampled ids, 0 on the template's and the env's.
 *
 * For a server that only takes chat requests (`route: 'chat'`) the messages are sent, the ids the
 * server returns are kept, and the drift check (token-drift.ts) compares the prompt ids it says it
 * read with ours. Every turn is checked; `release` lists the turns that drift.
 */
import type { PromptTemplate } from '../../envs/contract.ts';
import { ChatEpisode, endOfTurnId } from '../hf/agent/chat-episode.ts';
import type { HfTokenizer } from '../hf/tokenizer/index.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from '../policy.ts';
import type { CallKey, LlmUsage } from './chat-types.ts';
import type { TokenReply, TokenRequest } from './completion-attempt.ts';
import { LlmError } from './llm-error.ts';
import { turnDrift } from './token-drift.ts';

/** Sends one token-exact turn (completion-client.ts). */
export interface TokenClient {
  complete(request: TokenRequest, key: CallKey): Promise<TokenReply & { retries: number }>;
  usage(): LlmUsage;
  close(): Promise<void>;
}

/** A token-exact episode's record: the trajectory, and the turns (0-based) whose ids drift from their text. */
export interface TokenExactTrajectory extends TokenTrajectory {
  readonly driftTurns: readonly number[];
}

/** Options of `new TokenLlmPolicy`: the model name, its client, its tokenizer and the env's prompt. */
export interface TokenLlmPolicyOptions {
  readonly model: string;
  readonly client: TokenClient;
  readonly tokenizer: HfTokenizer;
  readonly prompt: PromptTemplate;
  readonly temperature?: number;
  /** Nucleus sampling mass in (0, 1], sent as `top_p` (absent: not sent, the server's default). */
  readonly topP?: number;
  readonly maxTokens?: number;
  /** Send the episode's seed with each request (default true). */
  readonly sendSeed?: boolean;
}

interface Episode {
  readonly chat: ChatEpisode;
  readonly tokens: number[];
  readonly mask: number[];
  readonly logProbs: number[];
  readonly driftTurns: number[];
}

const FATAL = new Set(['LLM_REJECTED']);

/** An LLM endpoint's model as an agent whose episodes are token-exact (see the file's comment). */
export class TokenLlmPolicy implements Policy {
  readonly name: string;
  readonly version = 0;
  readonly concurrent = true;
  readonly #episodes = new Map<string, Episode>();
  readonly #end: number;
  #fatal: LlmError | undefined;
  /** Called once, at the first error no retry can cure (see LlmPolicy.onFatal). */
  onFatal: ((error: LlmError) => void) | undefined;

  constructor(private readonly options: TokenLlmPolicyOptions) {
    if (options.topP !== undefined && !(options.topP > 0 && options.topP <= 1)) throw new RangeError(`topP must be in (0, 1], got ${options.topP}`);
    this.name = `openai:${options.model}`;
    this.#end = endOfTurnId(options.tokenizer);
  }

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return Promise.all(batch.map((request) => this.#decide(request)));
  }

  async #decide(request: ActRequest): Promise<Decision> {
    const episode = this.#open(request);
    const added = request.turn === 0 ? episode.chat.open(request) : episode.chat.next(request);
    push(episode, added, 0);
    const promptIds = [...episode.tokens];
    const reply = await this.#call(request, episode, promptIds);
    const stopped = reply.ids.length > 0 && this.options.tokenizer.stopIds.includes(reply.ids[reply.ids.length - 1]!);
    const contentIds = stopped ? reply.ids.slice(0, -1) : reply.ids;
    push(episode, reply.ids, 1, reply.logProbs);
    // A server that ended on a stop id but left it out: the template's end-of-turn id closes the
    // reply as a template token (mask 0), so the next turn's prompt is what the model would read.
    const closed = !stopped && reply.finish === 'stop';
    if (closed) push(episode, [this.#end], 0);
    const read = episode.chat.reply(closed ? [...reply.ids, this.#end] : reply.ids, stopped || closed);
    const drift = turnDrift(this.options.tokenizer, {
      contentIds, text: reply.text, promptIds, ...(reply.promptIds !== undefined ? { serverPromptIds: reply.promptIds } : {}),
    });
    if (drift !== undefined) episode.driftTurns.push(request.turn);
    return {
      action: read.action,
      tokenIds: reply.ids,
      logProbs: reply.logProbs,
      usage: {
        promptTokens: promptIds.length,
        completionTokens: reply.ids.length,
        latencyMs: reply.latencyMs,
        retries: reply.retries,
        reply: read.text,
        ...(read.formatError !== undefined ? { formatError: read.formatError } : {}),
      },
    };
  }

  #open(request: ActRequest): Episode {
    const held = this.#episodes.get(request.episodeId);
    if (held !== undefined && request.turn > 0) return held;
    const episode: Episode = { chat: new ChatEpisode(this.options.tokenizer, this.options.prompt), tokens: [], mask: [], logProbs: [], driftTurns: [] };
    this.#episodes.set(request.episodeId, episode);
    return episode;
  }

  async #call(request: ActRequest, episode: Episode, promptIds: number[]): Promise<TokenReply & { retries: number }> {
    const { model, temperature, topP, maxTokens, sendSeed, client } = this.options;
    try {
      return await client.complete({
        model, promptIds, messages: episode.chat.conversation,
        ...(temperature !== undefined ? { temperature } : {}),
        ...(topP !== undefined ? { topP } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        ...(sendSeed === false ? {} : { seed: request.seed }),
      }, { episodeId: request.episodeId, turn: request.turn });
    } catch (error) {
      if (error instanceof LlmError && FATAL.has(error.code) && this.#fatal === undefined) {
        this.#fatal = error;
        this.onFatal?.(error);
      }
      throw error;
    }
  }

  get fatalError(): LlmError | undefined {
    return this.#fatal;
  }

  usage(): LlmUsage {
    return this.options.client.usage();
  }

  /** Every id of the episode: mask 1 exactly on the sampled ids, their log-probs (0 elsewhere), and the drifting turns. */
  release(episodeId: string): TokenExactTrajectory | undefined {
    const episode = this.#episodes.get(episodeId);
    this.#episodes.delete(episodeId);
    if (episode === undefined || episode.tokens.length === 0) return undefined;
    return { tokens: episode.tokens, mask: episode.mask, logProbs: episode.logProbs, driftTurns: episode.driftTurns };
  }
}

function push(episode: Episode, ids: readonly number[], bit: 0 | 1, logProbs?: readonly number[]): void {
  ids.forEach((id, i) => {
    episode.tokens.push(id);
    episode.mask.push(bit);
    episode.logProbs.push(bit === 1 ? logProbs![i]! : 0);
  });
}
