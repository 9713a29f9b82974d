// Issue 37: the trajectory buffer's ledger — pending → ready → taken, stale and duplicate drops,
// room for producers, and the staleness histogram — as pure transitions.
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import {
  hasRoom,
  missing,
  room,
  stepReady,
  trajectoryBufferMachine,
  type TrajectoryBufferEvent,
  type TrajectoryBufferInput,
} from '../../machines/trajectory-buffer.machine.ts';
import { emitted } from './emitted.ts';

const input: TrajectoryBufferInput = { capacity: 4, groupsPerStep: 2, maxStaleness: 1, learnerVersion: 0, takenThrough: 0 };

function feed(events: readonly TrajectoryBufferEvent[], over: Partial<TrajectoryBufferInput> = {}) {
  let [snapshot] = initialTransition(trajectoryBufferMachine, { ...input, ...over });
  const out: ReturnType<typeof emitted> = [];
  for (const event of events) {
    const [next, actions] = transition(trajectoryBufferMachine, snapshot, event);
    snapshot = next;
    out.push(...emitted(actions));
  }
  return { context: snapshot.context, emitted: out };
}

const offer = (step: number, index: number, policyVersion = 0, producer = 'local'): TrajectoryBufferEvent => ({ type: 'OFFER', group: { step, index, policyVersion, producer } });
const request = (step: number, indices: number[] = [0, 1]): TrajectoryBufferEvent => ({ type: 'REQUEST', step, indices });

describe('trajectory buffer machine', () => {
  it('counts requested work against the capacity, so producers wait for room', () => {
    const { context } = feed([request(1), request(2)]);
    expect(room(context)).toBe(0);
    expect(hasRoom(context)).toBe(false);
    const freed = feed([request(1), request(2), { type: 'CANCEL', step: 2, indices: [0, 1] }]).context;
    expect(room(freed)).toBe(2);
    expect(hasRoom(freed, 2)).toBe(true);
    expect(hasRoom(freed, 3)).toBe(false);
  });

  it('makes a step ready only when all its groups are, and the learner takes it whole', () => {
    const half = feed([request(1), offer(1, 1)]).context;
    expect(stepReady(half, 1)).toBe(false);
    const { context, emitted: out } = feed([request(1), offer(1, 1), offer(1, 0), { type: 'TAKE', step: 1 }]);
    expect(context.takenThrough).toBe(1);
    expect(context.entries).toEqual([]);
    expect(context.counts).toMatchObject({ offered: 2, trained: 2, droppedStale: 0, droppedDuplicate: 0 });
    expect(context.stalenessHistogram).toEqual({ '0': 2 });
    expect(out.map((e) => e.type)).toEqual(['group.ready', 'group.ready', 'step.taken']);
  });

  it('refuses to take a step that is not complete, or out of order', () => {
    expect(feed([request(1), offer(1, 0), { type: 'TAKE', step: 1 }]).context.takenThrough).toBe(0);
    expect(feed([offer(2, 0), offer(2, 1), { type: 'TAKE', step: 2 }]).context.takenThrough).toBe(0);
  });

  it('keeps the first of two offers of one group and counts the second, also after the step was taken', () => {
    const { context, emitted: out } = feed([offer(1, 0, 0, 'w1'), offer(1, 0, 0, 'w2'), offer(1, 1), { type: 'TAKE', step: 1 }, offer(1, 1)]);
    expect(context.counts).toMatchObject({ offered: 4, trained: 2, droppedDuplicate: 2 });
    expect(out.filter((e) => e.type === 'group.dropped').map((e) => [e.producer, e.reason])).toEqual([['w2', 'duplicate'], ['local', 'duplicate']]);
  });

  it('drops a group more than maxStaleness versions behind the learner, frees its key, and takes a fresh one', () => {
    // Learner at version 2, maxStaleness 1: a group made with version 0 is stale.
    const { context, emitted: out } = feed([{ type: 'ADVANCE', version: 2 }, request(3), offer(3, 0, 0), offer(3, 1, 2)]);
    expect(context.counts.droppedStale).toBe(1);
    expect(missing(context, 3)).toEqual([0]);
    expect(out.find((e) => e.type === 'group.dropped')).toMatchObject({ step: 3, index: 0, reason: 'stale', policyVersion: 0 });
    const again = feed([{ type: 'ADVANCE', version: 2 }, request(3), offer(3, 0, 0), offer(3, 1, 2), offer(3, 0, 1)], { takenThrough: 2 }).context;
    expect(again.counts).toMatchObject({ droppedStale: 1, droppedDuplicate: 0 });
    expect(stepReady(again, 3)).toBe(true);
  });

  it('drops ready groups the learner has moved too far past when it advances', () => {
    const { context, emitted: out } = feed([request(2), offer(2, 0, 0), offer(2, 1, 1), { type: 'ADVANCE', version: 2 }], { takenThrough: 1, learnerVersion: 1 });
    expect(context.counts.droppedStale).toBe(1);
    expect(missing(context, 2)).toEqual([0]);
    expect(out.filter((e) => e.type === 'group.dropped')).toHaveLength(1);
  });

  it('records the staleness of every trained group', () => {
    const { context } = feed([offer(2, 0, 0), offer(2, 1, 1), { type: 'TAKE', step: 2 }], { takenThrough: 1, learnerVersion: 1 });
    expect(context.stalenessHistogram).toEqual({ '0': 1, '1': 1 });
  });

  it('with maxStaleness 0 accepts only groups of the learner\'s own version', () => {
    const { context } = feed([{ type: 'ADVANCE', version: 1 }, offer(2, 0, 0), offer(2, 1, 1)], { maxStaleness: 0, takenThrough: 1 });
    expect(context.counts.droppedStale).toBe(1);
    expect(stepReady(context, 2)).toBe(false);
  });

  it('keeps a JSON context', () => {
    const { context } = feed([request(1), offer(1, 0), offer(1, 1), { type: 'TAKE', step: 1 }, offer(2, 0)]);
    expect(JSON.parse(JSON.stringify(context))).toEqual(context);
  });
});
