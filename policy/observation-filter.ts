/**
 * What the model reads of an observation (a policy input choice; the env is untouched and the
 * trajectories log the env's own text).
 *
 * `no-action-list` drops BabyAI/AgentGym's trailing `Available actions: [...]` list. Decoding is
 * constrained to exactly those actions (they arrive as `ActRequest.availableActions`), so the list
 * tells the model nothing the action trie does not already enforce, while it is 40–60 % of an
 * observation's tokens: dropping it roughly halves the tokens every rollout and learner step reads.
 */
import type { ActRequest, Decision, Policy } from './policy.ts';
import type { WindowedTrajectory } from './context-window.ts';
import type { TransformerPolicy } from './transformer-policy.ts';

export const OBSERVATION_FILTERS = ['full', 'no-action-list'] as const;
export type ObservationFilter = (typeof OBSERVATION_FILTERS)[number];

const ACTION_LIST = /\n?Available actions: \[[^\n]*\]\s*$/;

export function filterObservation(filter: ObservationFilter, observation: string): string {
  return filter === 'no-action-list' ? observation.replace(ACTION_LIST, '') : observation;
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
 * A TransformerPolicy behind an observation filter; with `record`, the token record of every
 * released episode (and the action lists its turns were constrained to) is kept until `take`.
 */
export class FilteredPolicy implements Policy {
  readonly #records = new Map<string, RecordedEpisode>();
  readonly #actions = new Map<string, (readonly string[] | undefined)[]>();

  constructor(
    readonly inner: TransformerPolicy,
    readonly filter: ObservationFilter,
    readonly options: { readonly record?: boolean } = {},
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get version(): number {
    return this.inner.version;
  }

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    if (this.options.record === true) {
      for (const r of batch) {
        const turns = r.turn === 0 ? [] : (this.#actions.get(r.episodeId) ?? []);
        turns[r.turn] = r.availableActions;
        this.#actions.set(r.episodeId, turns);
      }
    }
    if (this.filter === 'full') return this.inner.act(batch);
    return this.inner.act(batch.map((r) => ({ ...r, observation: filterObservation(this.filter, r.observation) })));
  }

  release(episodeId: string): WindowedTrajectory | undefined {
    const released = this.inner.release(episodeId);
    const availableActions = this.#actions.get(episodeId) ?? [];
    this.#actions.delete(episodeId);
    if (released !== undefined && this.options.record === true) this.#records.set(episodeId, { trajectory: released, availableActions });
    return released;
  }

  /** The record of a released episode, removed from the store. */
  take(episodeId: string): RecordedEpisode | undefined {
    const record = this.#records.get(episodeId);
    this.#records.delete(episodeId);
    return record;
  }

  /** Drops records nobody took (e.g. episodes of a cancelled step). */
  clearRecords(): void {
    this.#records.clear();
    this.#actions.clear();
  }
}
