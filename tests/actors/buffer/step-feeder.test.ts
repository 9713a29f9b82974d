// Issue 37: the step feeder keeps a producer working for the buffer — only the wanted step when
// synchronous, at most K steps ahead of the learner when asynchronous — and has groups the buffer
// drops as stale collected again.
import { describe, expect, it } from 'vitest';
import { StepFeeder } from '../../../actors/buffer/step-feeder.ts';
import { TrajectoryBuffer } from '../../../actors/buffer/trajectory-buffer.ts';
import { FakeProducer } from './fake-producer.ts';

const T = 2;

function rig(K: number, steps: number, versionOf?: (step: number, index: number, version: number) => number, firstStep = 1) {
  const buffer = new TrajectoryBuffer({ capacity: T * (K + 1), groupsPerStep: T, maxStaleness: K, learnerVersion: firstStep - 1, takenThrough: firstStep - 1 });
  const producer = new FakeProducer(() => buffer.learnerVersion, versionOf);
  const halt = new AbortController();
  const feeder = new StepFeeder({ buffer, producer, groupsPerStep: T, ahead: K, lastStep: steps, firstStep, horizon: () => 3, signal: halt.signal });
  return { buffer, producer, feeder, halt };
}

/** The learner's loop: want a step, wait for its groups, train a while, take them, publish. */
async function learn(r: ReturnType<typeof rig>, from: number, to: number, trainMs = 8): Promise<number[][]> {
  const trained: number[][] = [];
  for (let step = from; step <= to; step++) {
    r.feeder.want(step);
    await r.buffer.ready(step);
    await new Promise((resolve) => setTimeout(resolve, trainMs));
    trained.push((await r.buffer.batch(step)).map((g) => g.step * 100 + g.index));
    r.buffer.advance(step);
  }
  return trained;
}

describe('StepFeeder', () => {
  it('synchronous (K = 0): collects a step only when the learner wants it, with the weights of the step before', async () => {
    const r = rig(0, 4);
    const trained = await learn(r, 1, 4);
    expect(trained).toEqual([[100, 101], [200, 201], [300, 301], [400, 401]]);
    expect(r.producer.calls).toEqual([1, 2, 3, 4].map((step) => ({ step, groups: [0, 1], version: step - 1 })));
    expect(r.buffer.snapshot()).toMatchObject({ trained: 8, droppedStale: 0, droppedDuplicate: 0, stalenessHistogram: { '0': 8 } });
  });

  it('asynchronous (K = 1): runs ahead of the learner, never more than K steps, and trains every group once', async () => {
    const r = rig(1, 6);
    const trained = await learn(r, 1, 6);
    expect(trained).toEqual([1, 2, 3, 4, 5, 6].map((s) => [s * 100, s * 100 + 1]));
    // Step t started with the learner at version v: t − 1 − v ≤ K, and it did run ahead.
    const ahead = r.producer.calls.map((c) => c.step - 1 - c.version);
    expect(Math.max(...ahead)).toBe(1);
    expect(r.producer.calls.map((c) => c.step)).toEqual([1, 2, 3, 4, 5, 6]);
    const snapshot = r.buffer.snapshot();
    expect(snapshot).toMatchObject({ trained: 12, droppedStale: 0, droppedDuplicate: 0 });
    expect(Object.values(snapshot.stalenessHistogram).reduce((a, b) => a + b, 0)).toBe(12);
    expect(Object.keys(snapshot.stalenessHistogram).every((k) => Number(k) <= 1)).toBe(true);
  });

  it('a group made at version v, offered when the learner is at v + K + 1, is dropped, counted and collected again', async () => {
    // K = 1; the first offer of step 4's group 0 comes from a producer still at version 0.
    let first = true;
    const r = rig(1, 4, (step, index, version) => {
      if (step !== 4 || index !== 0 || !first) return version;
      first = false;
      return 0;
    });
    const trained = await learn(r, 1, 4);
    expect(trained[3]).toEqual([400, 401]);
    expect(r.buffer.snapshot()).toMatchObject({ droppedStale: 1, trained: 8 });
    expect(r.producer.calls.filter((c) => c.step === 4)).toEqual([
      expect.objectContaining({ groups: [0, 1] }),
      expect.objectContaining({ groups: [0] }),
    ]);
  });

  it('fails the step the learner waits for when its production fails', async () => {
    const r = rig(0, 2);
    r.producer.produce = async () => { throw new Error('step 1: 2 slot(s) still aborted'); };
    r.feeder.want(1);
    await expect(r.buffer.ready(1)).rejects.toThrow('still aborted');
    expect(r.buffer.snapshot().fill).toBe(0);
  });

  it('fails a step whose producer finished without some of its groups, unless the run was stopped', async () => {
    const r = rig(0, 2);
    r.producer.produce = async (work, offer) => offer({ step: work.step, index: 0, taskId: 't', horizon: 3, policyVersion: 0, producer: 'fake', episodes: [], results: [] });
    r.feeder.want(1);
    await expect(r.buffer.ready(1)).rejects.toThrow('finished step 1 without group(s) 1');
  });

  it('starts nothing after the last step, and nothing once stopped', async () => {
    const r = rig(2, 2);
    await learn(r, 1, 2);
    expect(r.producer.calls.map((c) => c.step)).toEqual([1, 2]);
    const s = rig(1, 5);
    s.halt.abort();
    s.feeder.want(1);
    expect(s.producer.calls).toEqual([]);
  });
});
