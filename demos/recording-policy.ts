/**
 * A policy wrapper that keeps what each turn's request offered — the action list and the
 * episode's seed — so a finished episode can be written as a demo with the lists the agent
 * chose from (an `EpisodeOutput` keeps the observations and actions, not the lists).
 */
import type { ActRequest, Decision } from '../policy/policy.ts';
import { PolicyWrapper } from '../policy/policy-wrapper.ts';

export interface RecordedRequests {
  readonly seed: number;
  /** Per turn, the listed actions (undefined when the env listed none). */
  readonly availableActions: (readonly string[] | undefined)[];
}

export class RecordingPolicy extends PolicyWrapper {
  readonly #requests = new Map<string, RecordedRequests>();

  override act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    for (const r of batch) {
      // A retried episode starts over at turn 0 under a new id; a reused id at turn 0 starts fresh.
      const record = r.turn === 0 ? undefined : this.#requests.get(r.episodeId);
      const next = record ?? { seed: r.seed, availableActions: [] };
      next.availableActions[r.turn] = r.availableActions;
      this.#requests.set(r.episodeId, next);
    }
    return this.inner.act(batch);
  }

  /** The requests of an episode, removed from the store. */
  take(episodeId: string): RecordedRequests | undefined {
    const record = this.#requests.get(episodeId);
    this.#requests.delete(episodeId);
    return record;
  }
}
