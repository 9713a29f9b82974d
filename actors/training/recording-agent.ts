/**
 * Any policy that keeps a token record per episode (TokenTrajectory on release), made a
 * `RecordingAgent` (run-model.ts): `release` hands out the episode's record with the action lists
 * its turns offered (kept by demos/recording-policy.ts until then) and keeps nothing. Our
 * transformer has its own (the observation filter, policy/observation-filter.ts); this one is for
 * policies that read the env's text as it is (a Hugging Face model through its chat template).
 */
import { RecordingPolicy } from '../../demos/recording-policy.ts';
import type { RecordedTrajectory } from '../../policy/observation-filter.ts';
import type { ActRequest, Decision, Policy } from '../../policy/policy.ts';
import { PolicyWrapper } from '../../policy/policy-wrapper.ts';
import type { RecordingAgent } from './run-model.ts';

export class RecordingPolicyAgent extends PolicyWrapper implements RecordingAgent {
  readonly #requests: RecordingPolicy;

  constructor(inner: Policy) {
    super(inner);
    this.#requests = new RecordingPolicy(inner);
  }

  override act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return this.#requests.act(batch);
  }

  override release(episodeId: string): RecordedTrajectory | undefined {
    const released = this.#requests.release(episodeId);
    const availableActions = this.#requests.take(episodeId)?.availableActions ?? [];
    return released === undefined ? undefined : { ...released, windows: [], availableActions };
  }
}
