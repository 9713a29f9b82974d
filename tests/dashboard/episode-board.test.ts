import { describe, expect, it } from 'vitest';
import { EpisodeBoard, MAX_BOARD_ROWS } from '../../dashboard/server/episode-board.ts';

const started = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'episode.started', t: 0, episodeId: id, taskId: `task-${id}`, slot: 0, attempt: 0, maxTurns: 5, policyVersion: 0, ...extra,
});
const finished = (id: string, outcome: string, extra: Record<string, unknown> = {}) => ({
  type: 'episode.finished', t: 0, episodeId: id, taskId: `task-${id}`, slot: 0, attempt: 0, outcome, reward: 0.5, turns: 2, maxTurns: 5, policyVersion: 0, ...extra,
});

describe('EpisodeBoard (issue 6: the live episode board)', () => {
  it('derives each running episode’s machine state, turn and time in state from its events', () => {
    let now = 1_000;
    const board = new EpisodeBoard(() => now);
    board.apply({ type: 'run.started', t: 0, runId: 'step-1', horizon: 5 });
    board.apply(started('a'));
    expect(board.takeDiff()?.upsert).toMatchObject([{ id: 'a', state: 'resetting', turn: 0, maxTurns: 5, since: 1_000 }]);
    now = 1_500;
    board.apply({ type: 'agent.acted', t: 0, episodeId: 'a', turn: 0, action: 'turn left' });
    expect(board.takeDiff()?.upsert).toMatchObject([{ state: 'stepping', turn: 0, since: 1_500, lastAction: 'turn left' }]);
    now = 1_600;
    board.apply({ type: 'env.stepped', t: 0, episodeId: 'a', turn: 0, reward: 0.25, terminated: false, truncated: false });
    const diff = board.takeDiff();
    expect(diff?.upsert).toMatchObject([{ state: 'acting', turn: 1, since: 1_600, reward: 0.25 }]);
    expect(diff).toMatchObject({ rolloutId: 'step-1', horizon: 5, full: false });
    // A repeated state keeps its `since`: the alarm measures time in one state.
    now = 1_700;
    board.apply({ type: 'episode.state', t: 0, episodeId: 'a', state: 'acting' });
    expect(board.takeDiff()?.upsert[0]?.since).toBe(1_600);
    expect(board.takeDiff()).toBeUndefined();
  });

  it('counts every outcome, aborted included, over the source and over the latest rollout', () => {
    const board = new EpisodeBoard(() => 0);
    board.apply({ type: 'run.started', t: 0, runId: 'step-1', horizon: 3 });
    for (const [id, outcome] of [['a', 'success'], ['b', 'failure'], ['c', 'truncated'], ['d', 'aborted']] as const) {
      board.apply(started(id));
      board.apply(finished(id, outcome, outcome === 'aborted' ? { abortReason: 'env_lost' } : {}));
    }
    const diff = board.takeDiff();
    expect(diff?.outcomes).toEqual({ success: 1, failure: 1, truncated: 1, aborted: 1 });
    expect(diff?.upsert).toEqual([]);
    expect([...(diff?.remove ?? [])].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(diff?.finished.map((f) => f.abortReason)).toEqual([undefined, undefined, undefined, 'env_lost']);
    board.apply({ type: 'run.started', t: 0, runId: 'step-2', horizon: 3 });
    board.apply(started('e'));
    board.apply(finished('e', 'aborted'));
    expect(board.takeDiff()).toMatchObject({
      rolloutId: 'step-2',
      rollout: { success: 0, failure: 0, truncated: 0, aborted: 1 },
      outcomes: { success: 1, failure: 1, truncated: 1, aborted: 2 },
    });
    expect(board.running).toBe(0);
  });

  it('ignores malformed and unknown events instead of throwing', () => {
    const board = new EpisodeBoard(() => 0);
    expect(board.apply({ type: 'agent.acted', episodeId: 'nobody' })).toBe(false);
    expect(board.apply({ type: 'episode.started' })).toBe(false);
    expect(board.apply({ type: 'episode.finished', episodeId: 'x', outcome: 'exploded' })).toBe(false);
    expect(board.apply({ type: 'something.new', t: 1 })).toBe(false);
    board.apply(started('a', { maxTurns: 'many' }));
    expect(board.snapshot().upsert[0]?.maxTurns).toBe(0);
  });

  it('is bounded: episodes past MAX_BOARD_ROWS are counted, not kept, until they finish', () => {
    const board = new EpisodeBoard(() => 0);
    for (let i = 0; i < MAX_BOARD_ROWS + 3; i++) board.apply(started(`e${i}`));
    expect(board.running).toBe(MAX_BOARD_ROWS);
    expect(board.snapshot().overflow).toBe(3);
    board.apply(finished(`e${MAX_BOARD_ROWS + 1}`, 'success'));
    expect(board.snapshot().overflow).toBe(2);
  });

  it('after clearRunning (a remote source reconnected) sends one full diff and keeps the counts', () => {
    const board = new EpisodeBoard(() => 0);
    board.apply(started('a'));
    board.apply(finished('a', 'success'));
    board.apply(started('b'));
    board.takeDiff();
    board.clearRunning();
    expect(board.takeDiff()).toMatchObject({ full: true, upsert: [], outcomes: { success: 1 } });
  });
});
