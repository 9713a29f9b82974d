import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { hasRoom, rolloutBufferMachine, type BufferEvent } from '../../machines/rollout-buffer.machine.ts';
import type { EpisodeOutcome } from '../../streams/events.ts';
import { emitted } from './emitted.ts';

function output(episodeId: string, outcome: EpisodeOutcome, reward = 0): EpisodeOutput {
  return {
    episodeId,
    taskId: 't',
    slot: 0,
    attempt: 0,
    outcome,
    reward,
    turns: 1,
    maxTurns: 5,
    policyVersion: 0,
    firstObservation: '',
    trajectory: [],
  };
}

function feed(events: readonly BufferEvent[], groupSize = 2, capacity = 2) {
  let [snapshot] = initialTransition(rolloutBufferMachine, { groupSize, capacity });
  const violations: unknown[] = [];
  for (const event of events) {
    const [next, actions] = transition(rolloutBufferMachine, snapshot, event);
    snapshot = next;
    violations.push(...emitted(actions));
  }
  return { context: snapshot.context, violations };
}

const start = (episodeId: string, groupKey: string): BufferEvent => ({ type: 'EPISODE.STARTED', episodeId, groupKey });
const end = (episodeId: string, outcome: EpisodeOutcome = 'success'): BufferEvent => ({ type: 'EPISODE.ENDED', output: output(episodeId, outcome) });

describe('rollout buffer machine', () => {
  it('forms a group when its G members have ended', () => {
    const { context } = feed([start('a', 'g1'), start('b', 'g1'), end('a')]);
    expect(context.ready).toEqual([]);
    const done = feed([start('a', 'g1'), start('b', 'g1'), end('a'), end('b', 'failure')]).context;
    expect(done.ready.map((group) => group.members.map((m) => m.episodeId))).toEqual([['a', 'b']]);
    expect(done.counts).toMatchObject({ started: 2, ended: 2, outcomes: { success: 1, failure: 1, truncated: 0, aborted: 0 } });
  });

  it('records aborted episodes in the ledger but never in a group', () => {
    const { context } = feed([start('a', 'g1'), start('b', 'g1'), end('a', 'aborted'), start('c', 'g1'), end('b'), end('c')]);
    expect(context.counts.outcomes.aborted).toBe(1);
    expect(context.ready[0]?.members.map((m) => m.episodeId)).toEqual(['b', 'c']);
  });

  it('flags an episode that ends twice or was never started, and counts it', () => {
    const { context, violations } = feed([start('a', 'g'), end('a'), end('a'), end('zzz'), start('b', 'g'), start('b', 'g')]);
    expect(context.counts.ended).toBe(1);
    expect(context.counts.violations).toBe(3);
    expect(violations).toHaveLength(3);
  });

  it('closes a short group when a slot gives up', () => {
    const { context } = feed([start('a', 'g'), start('b', 'g'), end('a'), end('b', 'aborted'), { type: 'GROUP.SHRINK', groupKey: 'g' }]);
    expect(context.ready[0]?.members.map((m) => m.episodeId)).toEqual(['a']);
  });

  it('holds at most `capacity` groups, dropping the oldest and counting it', () => {
    const events: BufferEvent[] = [];
    for (const g of ['g1', 'g2', 'g3']) events.push(start(`${g}a`, g), end(`${g}a`));
    const { context } = feed(events, 1, 2);
    expect(context.ready.map((group) => group.groupKey)).toEqual(['g2', 'g3']);
    expect(context.counts.dropped).toBe(1);
  });

  it('hands groups to the learner with TAKE and reports room for more', () => {
    const full = feed([start('a', 'g1'), end('a'), start('b', 'g2'), end('b')], 1, 2).context;
    expect(hasRoom(full)).toBe(false);
    const taken = feed([start('a', 'g1'), end('a'), start('b', 'g2'), end('b'), { type: 'TAKE', count: 1 }], 1, 2).context;
    expect(taken.ready.map((group) => group.groupKey)).toEqual(['g2']);
    expect(hasRoom(taken)).toBe(true);
  });
});

describe('rollout buffer machine ledger', () => {
  it('keeps every episode and group apart when many end out of order', () => {
    const events: BufferEvent[] = [];
    for (let i = 0; i < 12; i++) events.push(start(`e${i}`, `g${i % 4}`));
    for (const i of [7, 0, 11, 3, 5, 1, 9, 2, 4, 10, 6, 8]) events.push(end(`e${i}`, i === 5 ? 'aborted' : 'success'));
    const { context, violations } = feed(events, 3, 8);
    expect(violations).toEqual([]);
    expect(context.open).toEqual([]);
    expect(context.counts).toMatchObject({ started: 12, ended: 12, outcomes: { success: 11, aborted: 1 } });
    // g1 lost e5 to an abort and waits for a retry; the others formed in the order they completed.
    expect(context.ready.map((group) => group.groupKey)).toEqual(['g3', 'g2', 'g0']);
    expect(context.ready[0]?.members.map((m) => m.episodeId)).toEqual(['e7', 'e11', 'e3']);
    expect(context.filling.map((group) => [group.groupKey, group.members.length])).toEqual([['g1', 2]]);
  });
});
