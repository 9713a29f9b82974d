import { describe, expect, it } from 'vitest';
import { stampEpisodeEvent } from '../../actors/episode.actor.ts';
import type { EpisodeEmitted } from '../../machines/episode.machine.ts';

describe('stampEpisodeEvent', () => {
  it('is `{ ...emitted, t }`, field for field and in the same key order', () => {
    const emitted: EpisodeEmitted[] = [
      { type: 'agent.acted', episodeId: 'e1', turn: 3, action: 'go' },
      { type: 'env.stepped', episodeId: 'e1', turn: 3, reward: 0.5, terminated: true, truncated: false },
    ];
    for (const event of emitted) {
      const stamped = stampEpisodeEvent(event, 42);
      expect(stamped).toEqual({ ...event, t: 42 });
      expect(JSON.stringify(stamped)).toBe(JSON.stringify({ ...event, t: 42 }));
    }
  });
});
