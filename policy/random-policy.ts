/**
 * The random baseline: uniform over the env's available actions. The pick depends only on the
 * episode's seed and the turn, so results do not depend on how requests were batched.
 */
import { deriveSeed } from '../machines/seed.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from './policy.ts';
import { mulberry32 } from './seeded-random.ts';

/** What a random agent says when the env lists no actions: a harmless, always-parsable command. */
const FALLBACK_ACTION = 'look around';

export class RandomPolicy implements Policy {
  readonly name = 'random';
  readonly version = 0;

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return Promise.resolve(batch.map((request) => ({ action: pick(request) })));
  }

  release(_episodeId: string): TokenTrajectory | undefined {
    return undefined;
  }
}

function pick(request: ActRequest): string {
  const actions = request.availableActions;
  if (!actions || actions.length === 0) return FALLBACK_ACTION;
  const u = mulberry32(deriveSeed(request.seed, request.turn))();
  return actions[Math.floor(u * actions.length)] ?? FALLBACK_ACTION;
}
