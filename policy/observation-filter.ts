/**
 * What the model reads of an observation (a policy input choice; the env is untouched and the
 * trajectories log the env's own text).
 *
 * `no-action-list` drops BabyAI/AgentGym's trailing `Available actions: [...]` list. Decoding is
 * constrained to exactly those actions (they arrive as `ActRequest.availableActions`), so the list
 * tells the model nothing the action trie does not already enforce, while it is 40–60 % of an
 * observation's tokens: dropping it roughly halves the tokens every rollout and learner step reads.
 *
 * `objective-first` is for the web env (WebArena's layout), whose page tree comes before the
 * `URL:`, `OBJECTIVE:` and `PREVIOUS ACTION:` lines. The context window keeps the beginning of an
 * observation too long for it (and the instruction is the first observation's beginning), so a
 * small policy would read the tree and never the objective. This filter moves those three trailing
 * lines to the front (objective first) and drops the `OBSERVATION:` header; a text without them
 * passes unchanged, and the `no-action-list` rule still applies.
 */
import type { ActRequest, Decision, Policy, TokenTrajectory } from './policy.ts';
import type { WindowedTrajectory } from './context-window.ts';
import type { DemonstratedRequest, DemonstratedTurn, TransformerPolicy } from './transformer-policy.ts';
import { checkSymmetryGroups, type SymmetryGroups } from '../envs/contract.ts';
import { Relabeling } from './relabel.ts';

export const OBSERVATION_FILTERS = ['full', 'no-action-list', 'objective-first'] as const;
export type ObservationFilter = (typeof OBSERVATION_FILTERS)[number];

const ACTION_LIST = /\n?Available actions: \[[^\n]*\]\s*$/;
/** WebArena's trailing lines (envs/web/browser/observation.ts); the objective may span lines. */
const WEB_TAIL = /\nURL: ([^\n]*)\nOBJECTIVE: ([\s\S]*)\nPREVIOUS ACTION: ([^\n]*)$/;

export function filterObservation(filter: ObservationFilter, observation: string): string {
  if (filter === 'full') return observation;
  const text = observation.replace(ACTION_LIST, '');
  if (filter === 'no-action-list') return text;
  const tail = WEB_TAIL.exec(text);
  if (tail === null) return text;
  const page = text.slice(0, tail.index).replace(/^OBSERVATION:\n/, '');
  return `OBJECTIVE: ${tail[2]}\nPREVIOUS ACTION: ${tail[3]}\nURL: ${tail[1]}\n${page}`;
}

export function parseObservationFilter(text: string): ObservationFilter {
  if ((OBSERVATION_FILTERS as readonly string[]).includes(text)) return text as ObservationFilter;
  throw new Error(`unknown observation filter "${text}"; expected one of ${OBSERVATION_FILTERS.join(', ')}`);
}

/** What the learner needs of a finished episode: its token windows and each turn's action list. */
export interface RecordedEpisode {
  readonly trajectory: WindowedTrajectory;
  /** `availableActions` of each turn's request (undefined when the env listed none). */
  readonly availableActions: readonly (readonly string[] | undefined)[];
}

/**
 * What a recording policy's `release` returns: the episode's token windows with the action list
 * of each of its turns. It is a token trajectory (the agent actor's `onRelease` hands it on as
 * any policy's), and `recordOf` turns it into the learner's `RecordedEpisode`.
 */
export interface RecordedTrajectory extends WindowedTrajectory {
  readonly availableActions: readonly (readonly string[] | undefined)[];
}

/** The learner's record of a released episode; undefined when the policy recorded none. */
export function recordOf(released: TokenTrajectory | undefined): RecordedEpisode | undefined {
  if (released === undefined || !('availableActions' in released)) return undefined;
  const { availableActions, ...trajectory } = released as RecordedTrajectory;
  return { trajectory, availableActions };
}

/**
 * A TransformerPolicy behind an observation filter; with `record`, `release` hands out the token
 * record of the episode with the action lists its turns were constrained to (`RecordedTrajectory`)
 * and keeps nothing of it: the records travel with the episode (the rollout's `onRelease`), the
 * policy is no store.
 * With `relabel`, each episode reads and writes through its own symmetry relabeling
 * (policy/relabel.ts): the recorded tokens and action lists are the relabeled ones the policy saw.
 * With `hide`, those actions are taken out of each request's choices before the model sees them.
 */
export class FilteredPolicy implements Policy {
  readonly #actions = new Map<string, (readonly string[] | undefined)[]>();
  readonly #relabelings = new Map<string, Relabeling>();

  constructor(
    readonly inner: TransformerPolicy,
    readonly filter: ObservationFilter,
    readonly options: {
      readonly record?: boolean;
      readonly relabel?: SymmetryGroups;
      /** Actions removed from each request's choices (see TrainingConfig.hiddenActions). */
      readonly hide?: readonly string[];
    } = {},
  ) {
    if (options.relabel !== undefined) checkSymmetryGroups(options.relabel);
  }

  get name(): string {
    return this.inner.name;
  }

  get version(): number {
    return this.inner.version;
  }

  async act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    const seen = batch.map((r) => this.#seen(r));
    this.#recordActions(seen);
    const decisions = await this.inner.act(seen);
    if (this.options.relabel === undefined) return decisions;
    return decisions.map((d, i) => ({ ...d, action: this.#relabeling(batch[i] as ActRequest).backward(d.action) }));
  }

  /**
   * A demonstrator's turns (TransformerPolicy.demonstrate) read through the same filter, hiding
   * and relabeling as `act`, and recorded the same way: `release` then returns what RL would have
   * recorded had the policy sampled these actions.
   */
  demonstrate(batch: readonly DemonstratedRequest[]): DemonstratedTurn[] {
    const seen = batch.map((r) => {
      const action = this.options.relabel === undefined ? r.action : this.#relabeling(r).forward(r.action);
      return { ...this.#seen(r), action };
    });
    this.#recordActions(seen);
    return this.inner.demonstrate(seen);
  }

  #recordActions(seen: readonly ActRequest[]): void {
    if (this.options.record !== true) return;
    for (const r of seen) {
      const turns = r.turn === 0 ? [] : (this.#actions.get(r.episodeId) ?? []);
      turns[r.turn] = r.availableActions;
      this.#actions.set(r.episodeId, turns);
    }
  }

  /** The request as the model reads it: filtered, and relabeled when asked. */
  #seen(request: ActRequest): ActRequest {
    const r = this.#withoutHidden(request);
    const observation = filterObservation(this.filter, r.observation);
    if (this.options.relabel === undefined) return observation === r.observation ? r : { ...r, observation };
    const relabeling = this.#relabeling(r);
    const seen = { ...r, observation: relabeling.forward(observation) };
    return r.availableActions === undefined ? seen : { ...seen, availableActions: r.availableActions.map((a) => relabeling.forward(a)) };
  }

  /** The request without the hidden actions; a list they would empty stays whole (the agent must act). */
  #withoutHidden(r: ActRequest): ActRequest {
    const hide = this.options.hide;
    if (hide === undefined || hide.length === 0 || r.availableActions === undefined) return r;
    const kept = r.availableActions.filter((a) => !hide.includes(a));
    return kept.length === r.availableActions.length || kept.length === 0 ? r : { ...r, availableActions: kept };
  }

  /** The episode's relabeling, drawn from its seed at its first turn and kept to its release. */
  #relabeling(r: ActRequest): Relabeling {
    let relabeling = this.#relabelings.get(r.episodeId);
    if (relabeling === undefined) {
      relabeling = new Relabeling(this.options.relabel ?? [], r.seed);
      this.#relabelings.set(r.episodeId, relabeling);
    }
    return relabeling;
  }

  /** Drops the episode's state; with `record`, returns its record (`RecordedTrajectory`), kept nowhere else. */
  release(episodeId: string): WindowedTrajectory | RecordedTrajectory | undefined {
    this.#relabelings.delete(episodeId);
    const released = this.inner.release(episodeId);
    const availableActions = this.#actions.get(episodeId) ?? [];
    this.#actions.delete(episodeId);
    if (released !== undefined && this.options.record === true) return { ...released, availableActions };
    return released;
  }

  /** Drops the state of episodes never released (e.g. of a cancelled step). */
  clearRecords(): void {
    this.#actions.clear();
    this.#relabelings.clear();
  }
}
