// Issue 37: the buffer actor holds the training data — a step's groups are handed to the learner
// once all are ready and leave the buffer with it; duplicates and stale groups are dropped and
// counted; producers see the room; the stream hears the buffer per step, not per group.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { TrajectoryBuffer, type BufferSnapshot } from '../../../actors/buffer/trajectory-buffer.ts';
import { group } from './fake-producer.ts';

const make = (over: Partial<ConstructorParameters<typeof TrajectoryBuffer>[0]> = {}) =>
  new TrajectoryBuffer({ capacity: 4, groupsPerStep: 2, maxStaleness: 0, learnerVersion: 0, takenThrough: 0, ...over });

describe('TrajectoryBuffer', () => {
  it('resolves a batch once every group of the step is ready, in index order, and hands the groups over', async () => {
    const buffer = make();
    let done = false;
    const batch = buffer.batch(1).then((groups) => { done = true; return groups; });
    buffer.offer(group(1, 1, 0));
    await Promise.resolve();
    expect(done).toBe(false);
    buffer.offers.next(group(1, 0, 0));
    const groups = await batch;
    expect(groups.map((g) => g.index)).toEqual([0, 1]);
    expect(buffer.snapshot()).toMatchObject({ ready: 0, fill: 0, trained: 2, takenThrough: 1, stalenessHistogram: { '0': 2 } });
  });

  it('keeps the first of two offers of a group and counts the other', async () => {
    const buffer = make();
    buffer.offer(group(1, 0, 0, 'first'));
    buffer.offer(group(1, 0, 0, 'second'));
    buffer.offer(group(1, 1, 0));
    const groups = await buffer.batch(1);
    expect(groups[0]?.producer).toBe('first');
    buffer.offer(group(1, 1, 0, 'late'));
    expect(buffer.snapshot()).toMatchObject({ droppedDuplicate: 2, trained: 2 });
  });

  it('drops a group staler than maxStaleness and tells who must collect it again', () => {
    const buffer = make({ maxStaleness: 1, learnerVersion: 3, takenThrough: 3 });
    const dropped: unknown[] = [];
    buffer.dropped$.subscribe((e) => dropped.push(e));
    buffer.offer(group(4, 0, 1));
    expect(dropped).toEqual([expect.objectContaining({ step: 4, index: 0, reason: 'stale', policyVersion: 1 })]);
    expect(buffer.missing(4)).toEqual([0, 1]);
    expect(buffer.snapshot().droppedStale).toBe(1);
  });

  it('shows producers the free room: requested work and ready groups take it, a batch frees it', async () => {
    const buffer = make();
    const room: number[] = [];
    buffer.room$.subscribe((r) => room.push(r));
    buffer.request(1, [0, 1]);
    buffer.request(2, [0, 1]);
    buffer.offer(group(1, 0, 0));
    buffer.offer(group(1, 1, 0));
    await buffer.batch(1);
    expect(room).toEqual([4, 2, 0, 2]);
  });

  it('rejects whoever waits for a step that failed', async () => {
    const buffer = make();
    const waiting = buffer.ready(1);
    buffer.fail(1, new Error('step 1: env gone'));
    await expect(waiting).rejects.toThrow('step 1: env gone');
    await expect(buffer.ready(1)).rejects.toThrow('env gone');
  });

  it('stops waiting when the run stops', async () => {
    const buffer = make();
    const stop = new AbortController();
    const waiting = buffer.ready(1, stop.signal);
    stop.abort(new Error('stopped by the test'));
    await expect(waiting).rejects.toThrow('stopped by the test');
  });

  it('leaves no listener on the run signal once a wait is over (one signal sees every step)', async () => {
    const buffer = make();
    const run = new AbortController();
    for (let step = 1; step <= 12; step++) {
      const batch = buffer.batch(step, run.signal);
      buffer.offer(group(step, 0, step - 1));
      buffer.offer(group(step, 1, step - 1));
      await batch;
      buffer.advance(step);
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('reports itself when a step is complete and when it is taken, not for every group', async () => {
    const buffer = make();
    const seen: BufferSnapshot[] = [];
    buffer.changes$.subscribe((s) => seen.push(s));
    buffer.offer(group(1, 0, 0));
    expect(seen).toHaveLength(0);
    buffer.offer(group(1, 1, 0));
    await buffer.batch(1);
    expect(seen.map((s) => [s.ready, s.trained])).toEqual([[2, 0], [0, 2]]);
  });
});
