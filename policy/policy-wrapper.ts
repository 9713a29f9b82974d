/**
 * A policy around another one: name, version and concurrency are the inner policy's, and `act`
 * and `release` pass through unless a subclass overrides them. The wrappers that record requests,
 * token records or failures (demos/, actors/) extend it, so each states only what it adds.
 */
import type { ActRequest, Decision, Policy, TokenTrajectory } from './policy.ts';

export class PolicyWrapper implements Policy {
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
    return this.inner.act(batch);
  }

  release(episodeId: string): TokenTrajectory | undefined {
    return this.inner.release(episodeId);
  }
}
