/**
 * A policy wrapper that keeps each released episode's token record and the version of the weights
 * that decided it, until the writer of token records takes them (`rollout`/`collect --format
 * tokens`). The inner policy's own release is passed through unchanged.
 */
import type { ActRequest, Decision, TokenTrajectory } from '../policy/policy.ts';
import { PolicyWrapper } from '../policy/policy-wrapper.ts';

export interface KeptEpisode {
  readonly trajectory: TokenTrajectory & { readonly driftTurns?: readonly number[] };
  readonly version: number;
}

/** Wraps a policy to keep each released episode's token ids and weights' version until `take` (what `--format tokens` writes). */
export class TokenRecordingPolicy extends PolicyWrapper {
  readonly #kept = new Map<string, KeptEpisode>();
  readonly #versions = new Map<string, number>();

  override act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    for (const r of batch) if (r.turn === 0) this.#versions.set(r.episodeId, this.inner.version);
    return this.inner.act(batch);
  }

  override release(episodeId: string): TokenTrajectory | undefined {
    const released = this.inner.release(episodeId);
    const version = this.#versions.get(episodeId) ?? this.inner.version;
    this.#versions.delete(episodeId);
    if (released !== undefined) this.#kept.set(episodeId, { trajectory: released, version });
    return released;
  }

  /** The record of a released episode, removed from the store. */
  take(episodeId: string): KeptEpisode | undefined {
    const kept = this.#kept.get(episodeId);
    this.#kept.delete(episodeId);
    return kept;
  }
}
