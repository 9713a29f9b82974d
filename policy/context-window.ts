/**
 * One episode's token context, as the transformer sees it, and its training record.
 *
 * Layout (docs/architecture.md, "The multi-turn token layout"): [<bos> instruction=obs0] <act> a0… </act> <obs> obs1 <act> a1… </act> …
 * The head — <bos> and the first observation, which carries the instruction — is kept for the
 * whole episode; each later turn is a block [<obs> obs_k <act> a_k… </act>] (turn 0's block is
 * just [<act> a0… </act>]).
 *
 * Windowing. Before a turn, if the context plus the new observation plus the action budget would
 * pass `maxContext`, a new window starts: the head, then the most recent whole turn blocks that
 * fit in `refillFraction · maxContext`, then the new observation. Dropping more than strictly
 * needed leaves room for several turns before the next reset, since each reset recomputes the
 * whole KV cache (positions shift, so cached keys are invalid).
 *
 * What the learner gets. Every window is recorded as the exact token sequence the model read;
 * its mask is 1 only on agent tokens sampled *in that window*, i.e. whose prefix in the record is
 * exactly the context they were sampled from. Agent tokens carried over from an earlier window
 * are context there (mask 0), because their recorded log-probs came from a different context.
 * So each sampled token is trained exactly once, in a sequence of at most `maxContext` tokens,
 * and a fresh rollout has PPO ratio 1 on every masked token. `trajectory().windows` lists all
 * windows; the top-level fields are the last window (the one with the final action).
 */
import type { TokenTrajectory } from './policy.ts';
import { ACT_ID, BOS_ID, OBS_ID } from './special-tokens.ts';

export interface WindowOptions {
  readonly maxContext: number;
  /** Fill level after a window reset, as a fraction of maxContext (default 0.75). */
  readonly refillFraction?: number;
  /** Instruction (first observation) tokens kept, from its start (default maxContext / 2). */
  readonly maxInstructionTokens?: number;
  /**
   * Past turns the model may read (default: as many as fit). When set, the layout is
   * [<bos> instruction] then one block [<obs> obs_k <act> a_k… </act>] per turn, turn 0 included
   * (the head is only the first `maxInstructionTokens` of obs 0, not the whole first view), and a
   * window holds at most `historyTurns` past blocks. 0 makes the policy Markov: every decision
   * reads the instruction and the current observation only, at the same positions every turn.
   */
  readonly historyTurns?: number;
  /**
   * With `historyTurns`: past blocks keep only their action, `[<act> a_k… </act>]`, and drop
   * their observation. The model then remembers what it did (a sub-goal reached, a pickup, the
   * turns of a search) for a few tokens a turn instead of a whole view. Every turn starts a new
   * window, since the previous turn's observation leaves it.
   */
  readonly historyActionsOnly?: boolean;
}

/** A trajectory whose windows each satisfy the contract above. */
export interface WindowedTrajectory extends TokenTrajectory {
  readonly windows: readonly TokenTrajectory[];
}

interface WindowRecord {
  tokens: number[];
  mask: number[];
  logProbs: number[];
  /** The drawn-from distribution's log-probs (sampling.ts), kept beside `logProbs`. */
  sampledLogProbs: number[];
}

const agentTokens = (r: WindowRecord): number => r.mask.reduce((a, b) => a + b, 0);

export class EpisodeContext {
  readonly #maxContext: number;
  readonly #refill: number;
  readonly #maxInstruction: number;
  readonly #history: number | undefined;
  readonly #actionsOnly: boolean;
  #headLength = 0;
  /** Start index (in the current window) of each turn block. */
  #turnStarts: number[] = [];
  /** Index (in the current window) of each turn block's `<act>`. */
  #actStarts: number[] = [];
  #current: WindowRecord = { tokens: [], mask: [], logProbs: [], sampledLogProbs: [] };
  readonly #closed: WindowRecord[] = [];
  /** Whether the policy gave `sampledLogProbs`: only then do the windows carry them. */
  #recordsSampled = false;

  constructor(options: WindowOptions) {
    this.#maxContext = options.maxContext;
    this.#refill = options.refillFraction ?? 0.75;
    this.#maxInstruction = options.maxInstructionTokens ?? Math.floor(options.maxContext / 2);
    this.#history = options.historyTurns;
    this.#actionsOnly = options.historyActionsOnly ?? false;
    if (!(this.#refill > 0 && this.#refill <= 1)) throw new Error('refillFraction must be in (0, 1]');
    if (this.#actionsOnly && this.#history === undefined) throw new Error('historyActionsOnly needs historyTurns');
    if (this.#history !== undefined && !(Number.isInteger(this.#history) && this.#history >= 0)) {
      throw new Error(`historyTurns must be an integer ≥ 0, got ${this.#history}`);
    }
  }

  /** The current window's tokens (what the model reads). */
  get tokens(): readonly number[] {
    return this.#current.tokens;
  }

  get started(): boolean {
    return this.#headLength > 0;
  }

  /** Windows closed so far (not counting the current one). */
  get resets(): number {
    return this.#closed.length;
  }

  /**
   * Appends an observation and the `<act>` that opens the agent's turn; `budget` is the most
   * tokens the action may take. Returns whether a new window started (the KV cache is invalid).
   */
  beginTurn(observation: readonly number[], budget: number): { readonly windowReset: boolean } {
    if (!this.started && this.#history !== undefined) {
      const room = Math.min(this.#maxInstruction, this.#maxContext - budget - 4);
      if (room < 1) throw new Error(`action budget ${budget} leaves no room in a context of ${this.#maxContext}`);
      this.#push([BOS_ID, ...observation.slice(0, room)], 0);
      this.#headLength = this.#current.tokens.length;
    } else if (!this.started) {
      const room = Math.min(this.#maxInstruction, this.#maxContext - budget - 2);
      if (room < 1) throw new Error(`action budget ${budget} leaves no room in a context of ${this.#maxContext}`);
      this.#push([BOS_ID, ...observation.slice(0, room)], 0);
      this.#headLength = this.#current.tokens.length;
      this.#turnStarts.push(this.#headLength);
      this.#actStarts.push(this.#headLength);
      this.#push([ACT_ID], 0);
      return { windowReset: false };
    }
    const block = [OBS_ID, ...observation, ACT_ID];
    const withinHistory = this.#history === undefined || this.#turnStarts.length <= this.#history;
    // Actions-only memory: the previous block's observation must leave, so only turn 0 appends.
    const keepsViews = !this.#actionsOnly || this.#turnStarts.length === 0;
    if (withinHistory && keepsViews && this.#current.tokens.length + block.length + budget <= this.#maxContext) {
      this.#turnStarts.push(this.#current.tokens.length);
      this.#actStarts.push(this.#current.tokens.length + block.length - 1);
      this.#push(block, 0);
      return { windowReset: false };
    }
    this.#startWindow(observation, budget);
    return { windowReset: true };
  }

  /**
   * Records the sampled action tokens (ending in `</act>`) and their log-probs: over the full
   * vocabulary, and (when the policy constrains its decoding) under the distribution each was drawn from.
   */
  appendAction(ids: readonly number[], logProbs: readonly number[], sampledLogProbs?: readonly number[]): void {
    if (ids.length !== logProbs.length) throw new Error('appendAction: one log-prob per token');
    if (sampledLogProbs !== undefined && sampledLogProbs.length !== ids.length) throw new Error('appendAction: one sampled log-prob per token');
    this.#current.tokens.push(...ids);
    this.#current.mask.push(...ids.map(() => 1));
    this.#current.logProbs.push(...logProbs);
    this.#current.sampledLogProbs.push(...(sampledLogProbs ?? ids.map(() => 0)));
    if (sampledLogProbs !== undefined) this.#recordsSampled = true;
  }

  /**
   * Records an action the policy did not sample here (a replayed past turn): its tokens, ending
   * in `</act>`, enter the context with mask 0, like agent tokens carried over from another window.
   */
  appendForcedAction(ids: readonly number[]): void {
    this.#push(ids, 0);
  }

  /** All windows with agent tokens; undefined when the agent never acted. */
  trajectory(): WindowedTrajectory | undefined {
    const windows = [...this.#closed, this.#current].filter((r) => agentTokens(r) > 0).map((r) => ({
      tokens: [...r.tokens], mask: [...r.mask], logProbs: [...r.logProbs],
      ...(this.#recordsSampled ? { sampledLogProbs: [...r.sampledLogProbs] } : {}),
    }));
    const last = windows[windows.length - 1];
    return last === undefined ? undefined : { ...last, windows };
  }

  #push(ids: readonly number[], mask: number): void {
    this.#current.tokens.push(...ids);
    this.#current.mask.push(...ids.map(() => mask));
    this.#current.logProbs.push(...ids.map(() => 0));
    this.#current.sampledLogProbs.push(...ids.map(() => 0));
  }

  #startWindow(observation: readonly number[], budget: number): void {
    const old = this.#current;
    const len = old.tokens.length;
    const target = Math.floor(this.#refill * this.#maxContext);
    const need = observation.length + 2 + budget;
    // What block i keeps: all of it, or (actions only) from its <act> to its end.
    const from = (i: number) => (this.#actionsOnly ? this.#actStarts[i]! : this.#turnStarts[i]!);
    const end = (i: number) => this.#turnStarts[i + 1] ?? len;
    // Keep turns from index k on: the smallest k that fits the refill target, else none. The
    // kept length grows as k falls, so walk back from the newest turn until it no longer fits.
    let k = this.#turnStarts.length;
    for (let i = k - 1, kept = 0; i >= 0; i--) {
      kept += end(i) - from(i);
      if (this.#headLength + kept + need > target) break;
      k = i;
    }
    if (this.#history !== undefined) k = Math.max(k, this.#turnStarts.length - this.#history);
    const room = this.#maxContext - budget - this.#headLength - 2;
    if (room < 0) throw new Error(`action budget ${budget} leaves no room in a context of ${this.#maxContext}`);
    if (agentTokens(old) > 0) this.#closed.push(old);
    this.#current = { tokens: [], mask: [], logProbs: [], sampledLogProbs: [] };
    this.#push(old.tokens.slice(0, this.#headLength), 0);
    const turnStarts: number[] = [];
    const actStarts: number[] = [];
    for (let i = k; i < this.#turnStarts.length; i++) {
      const at = this.#current.tokens.length;
      turnStarts.push(at);
      actStarts.push(at + this.#actStarts[i]! - from(i));
      this.#push(old.tokens.slice(from(i), end(i)), 0);
    }
    this.#turnStarts = turnStarts;
    this.#actStarts = actStarts;
    // An observation too long for any window keeps its beginning.
    const block = [OBS_ID, ...observation.slice(0, room), ACT_ID];
    this.#turnStarts.push(this.#current.tokens.length);
    this.#actStarts.push(this.#current.tokens.length + block.length - 1);
    this.#push(block, 0);
  }
}
