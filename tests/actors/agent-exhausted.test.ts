/**
 * A policy that cannot act in an episode any more (its context window is full) answers that turn
 * with `exhausted`: the episode ends `truncated` with the reward so far, like a horizon — scored
 * and trainable, not `aborted` and retried — and the other episodes of its batch go on.
 */
import { filter, firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import type { ActRequest, Decision, Policy } from '../../policy/policy.ts';
import type { EpisodeFinished } from '../../streams/events.ts';
import { counterDefinition } from '../fixtures/counter-env.ts';

/** Acts like the counter's oracle, but an odd slot's episode (ids `run-0-s<slot>a<attempt>`) is out of context at its second turn. */
const policy: Policy = {
  name: 'short-context',
  version: 0,
  act: async (batch: readonly ActRequest[]): Promise<readonly Decision[]> =>
    batch.map((r) => (r.turn === 1 && Number(/s(\d+)a/.exec(r.episodeId)?.[1] ?? 0) % 2 === 1 ? { action: '', exhausted: 'context full: test' } : { action: r.availableActions?.[0] ?? 'inc' })),
  release: () => undefined,
};

describe('an exhausted decision', () => {
  it('ends its episode truncated, not aborted, and leaves the others alone', async () => {
    const system = createRolloutSystem({ env: counterDefinition(), agent: policy, episodes: 6, concurrency: 6, schedule: 'fixed:5', maxRetries: 0 });
    const finished = firstValueFrom(system.events.pipe(filter((e): e is EpisodeFinished => e.type === 'episode.finished'), toArray()));
    const summary = await system.run();
    const outputs = await finished;
    expect(summary.outcomes.aborted).toBe(0);
    const exhausted = outputs.filter((o) => o.exhausted !== undefined);
    expect(exhausted.length).toBeGreaterThan(0);
    for (const o of exhausted) expect(o).toMatchObject({ outcome: 'truncated', turns: 1, exhausted: 'context full: test' });
    // Odd slots that take a second turn end there (slots 1 and 3 of the counter env's tasks); the even slots play on.
    expect(exhausted.map((o) => o.slot).sort()).toEqual([1, 3]);
    expect(outputs.filter((o) => o.slot % 2 === 0).every((o) => o.exhausted === undefined && o.outcome !== 'aborted')).toBe(true);
    expect(summary.attempts).toBe(6);
  });
});
