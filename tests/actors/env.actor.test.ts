import { createActor, fromCallback } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { answer } from '../../actors/env.actor.ts';
import type { EpisodeEvent } from '../../machines/episode.machine.ts';

const reset: EpisodeEvent = { type: 'ENV.RESET', observation: 'Count: 0', info: {} };

describe('answer', () => {
  it('answers a running episode, and drops a late answer to one that has ended, without xstate warning', () => {
    const got: EpisodeEvent[] = [];
    const episode = createActor(fromCallback<EpisodeEvent>(({ receive }) => receive((event) => void got.push(event)))).start();
    answer(episode, reset);
    expect(got).toEqual([reset]);
    episode.stop();
    const warn = vi.spyOn(console, 'warn');
    try {
      answer(episode, reset);
      expect(got).toEqual([reset]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('always answers a plain `send` target (no snapshot to read)', () => {
    const got: EpisodeEvent[] = [];
    answer({ send: (event) => void got.push(event) }, reset);
    expect(got).toEqual([reset]);
  });
});
