/**
 * Any policy that keeps a token record per episode (TokenTrajectory on release), made a
 * `RecordingAgent` (run-model.ts): each released episode's record and the action lists its turns
 * offered are kept until the step's collection takes them. Our transformer has its own (the
 * observation filter, policy/observation-filter.ts); this one is for policies that read the env's
 * text as it is (a Hugging Face model through its chat template).
 */
import type { RecordedEpisode } from '../../policy/observation-filter.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from '../../policy/policy.ts';
import type { RecordingAgent } from './run-model.ts';

export class RecordingPolicyAgent implements RecordingAgent {
  readonly #records = new Map<string, RecordedEpisode>();
  readonly #actions = new Map<string, (readonly string[] | undefined)[]>();

  constructor(readonly inner: Policy) {}

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
    for (const r of batch) {
      const turns = r.turn === 0 ? [] : (this.#actions.get(r.episodeId) ?? []);
      turns[r.turn] = r.availableActions;
      this.#actions.set(r.episodeId, turns);
    }
    return this.inner.act(batch);
  }

  release(episodeId: string): TokenTrajectory | undefined {
    const released = this.inner.release(episodeId);
    const availableActions = this.#actions.get(episodeId) ?? [];
    this.#actions.delete(episodeId);
    if (released !== undefined) this.#records.set(episodeId, { trajectory: { ...released, windows: [] }, availableActions });
    return released;
  }

  take(episodeId: string): RecordedEpisode | undefined {
    const record = this.#records.get(episodeId);
    this.#records.delete(episodeId);
    return record;
  }

  clearRecords(): void {
    this.#records.clear();
    this.#actions.clear();
  }
}
