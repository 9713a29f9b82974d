/**
 * Any policy that keeps a token record per episode (TokenTrajectory on release), made a
 * `RecordingAgent` (run-model.ts): each released episode's record and the action lists its turns
 * offered (kept by demos/recording-policy.ts) wait until the step's collection takes them. Our
 * transformer has its own (the observation filter, policy/observation-filter.ts); this one is for
 * policies that read the env's text as it is (a Hugging Face model through its chat template).
 */
import { RecordingPolicy } from '../../demos/recording-policy.ts';
import type { RecordedEpisode } from '../../policy/observation-filter.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from '../../policy/policy.ts';
import type { RecordingAgent } from './run-model.ts';

export class RecordingPolicyAgent implements RecordingAgent {
  readonly #records = new Map<string, RecordedEpisode>();
  readonly #requests: RecordingPolicy;

  constructor(readonly inner: Policy) {
    this.#requests = new RecordingPolicy(inner);
  }

  get name(): string {
    return this.inner.name;
  }

  get version(): number {
    return this.inner.version;
  }

  get concurrent(): boolean {
    return this.inner.concurrent === true;
  }

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return this.#requests.act(batch);
  }

  release(episodeId: string): TokenTrajectory | undefined {
    const released = this.#requests.release(episodeId);
    const availableActions = this.#requests.take(episodeId)?.availableActions ?? [];
    if (released !== undefined) this.#records.set(episodeId, { trajectory: { ...released, windows: [] }, availableActions });
    return released;
  }

  /** The record of a released episode, removed from the store. */
  take(episodeId: string): RecordedEpisode | undefined {
    const record = this.#records.get(episodeId);
    this.#records.delete(episodeId);
    return record;
  }

  clearRecords(): void {
    this.#records.clear();
  }
}
