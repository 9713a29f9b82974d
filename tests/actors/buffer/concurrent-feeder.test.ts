// Issue 37's speed goal: with maxStaleness K ≥ 1 the step feeder runs up to K + 1 steps'
// collections at once (not one), each sampled with the weights its producer holds when it starts,
// never more than K versions behind the learner that trains it; K = 0 stays one at a time.
import { describe, expect, it } from 'vitest';
import type { Producer, StepWork } from '../../../actors/buffer/producer.ts';
import { StepFeeder } from '../../../actors/buffer/step-feeder.ts';
import { TrajectoryBuffer } from '../../../actors/buffer/trajectory-buffer.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';
import { group } from './fake-producer.ts';

const T = 2;

/**
 * A producer whose collections overlap. `shared`: one policy as in one process (local-producer.ts):
 * the learner's newest version is applied only when a collection starts with none running.
 * `per-work`: as the remote producer, each piece of work samples with the learner's version at its start.
 */
class OverlappingProducer implements Producer {
  readonly name = 'overlap';
  #applied = 0;
  running = 0;
  mostRunning = 0;
  readonly calls: { step: number; groups: readonly number[]; version: number; beside: number }[] = [];
  /** Versions applied while a collection ran (must stay empty in `shared` mode). */
  readonly appliedUnderRunning: number[] = [];

  constructor(readonly learnerVersion: () => number, readonly mode: 'shared' | 'per-work', readonly groupMs: number) {}

  get version(): number {
    return this.mode === 'shared' ? this.#applied : this.learnerVersion();
  }

  async produce(work: StepWork, offer: (g: TrajectoryGroup) => void): Promise<void> {
    if (this.mode === 'shared' && this.running === 0) this.#applied = this.learnerVersion();
    const version = this.version;
    this.calls.push({ step: work.step, groups: work.groups, version, beside: this.running });
    this.running += 1;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    try {
      for (const index of work.groups) {
        await new Promise((resolve) => setTimeout(resolve, this.groupMs));
        if (this.mode === 'shared' && this.#applied !== version) this.appliedUnderRunning.push(this.#applied);
        offer(group(work.step, index, version));
      }
    } finally {
      this.running -= 1;
    }
  }
}

function rig(K: number, steps: number, mode: 'shared' | 'per-work', groupMs = 12) {
  const buffer = new TrajectoryBuffer({ capacity: T * (K + 1), groupsPerStep: T, maxStaleness: K, learnerVersion: 0, takenThrough: 0 });
  const producer = new OverlappingProducer(() => buffer.learnerVersion, mode, groupMs);
  const halt = new AbortController();
  const feeder = new StepFeeder({ buffer, producer, groupsPerStep: T, ahead: K, lastStep: steps, firstStep: 1, horizon: () => 3, signal: halt.signal });
  return { buffer, producer, feeder };
}

/** The learner's loop, its update much shorter than a collection (a latency-bound policy). */
async function learn(r: ReturnType<typeof rig>, steps: number, trainMs = 2): Promise<number[][]> {
  const trained: number[][] = [];
  for (let step = 1; step <= steps; step++) {
    r.feeder.want(step);
    await r.buffer.ready(step);
    const groups = await r.buffer.batch(step);
    // Every group the learner takes is within K of the version it trains at.
    trained.push(groups.map((g) => g.step * 100 + g.index));
    await new Promise((resolve) => setTimeout(resolve, trainMs));
    r.buffer.advance(step);
  }
  return trained;
}

function expectEveryStepOnceWhole(r: ReturnType<typeof rig>, trained: number[][], steps: number, K: number): void {
  expect(trained).toEqual(Array.from({ length: steps }, (_, i) => [(i + 1) * 100, (i + 1) * 100 + 1]));
  const snapshot = r.buffer.snapshot();
  expect(snapshot).toMatchObject({ trained: steps * T, droppedStale: 0, droppedDuplicate: 0 });
  expect(Object.keys(snapshot.stalenessHistogram).every((k) => Number(k) <= K)).toBe(true);
  // The bound: step t's groups sampled by a version ≥ t − 1 − K.
  for (const c of r.producer.calls) expect(c.version).toBeGreaterThanOrEqual(c.step - 1 - K);
  expect(r.producer.calls.map((c) => c.step)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
}

describe('StepFeeder with collections in flight at once', () => {
  it('K = 2, one version per piece of work (remote workers): up to 3 steps in flight, within the bound, each step once', async () => {
    const r = rig(2, 12, 'per-work');
    const trained = await learn(r, 12);
    expectEveryStepOnceWhole(r, trained, 12, 2);
    expect(r.feeder.mostInFlight).toBe(3);
    expect(r.producer.mostRunning).toBe(3);
  });

  it('K = 2, one shared policy (one process): overlaps collections, never applies a version under a running one', async () => {
    const r = rig(2, 12, 'shared');
    const trained = await learn(r, 12);
    expectEveryStepOnceWhole(r, trained, 12, 2);
    expect(r.producer.appliedUnderRunning).toEqual([]);
    expect(r.feeder.mostInFlight).toBe(3);
    // Past the first steps too, work started beside running work (with the version it holds).
    expect(r.producer.calls.filter((c) => c.step > 3 && c.beside > 0).length).toBeGreaterThan(0);
  });

  it('K = 1 keeps at most 2 in flight; K = 0 one at a time, each with the version before its step', async () => {
    const one = rig(1, 8, 'per-work');
    expectEveryStepOnceWhole(one, await learn(one, 8), 8, 1);
    expect(one.feeder.mostInFlight).toBe(2);
    const sync = rig(0, 5, 'shared');
    expectEveryStepOnceWhole(sync, await learn(sync, 5), 5, 0);
    expect(sync.feeder.mostInFlight).toBe(1);
    expect(sync.producer.calls.map((c) => c.version)).toEqual([0, 1, 2, 3, 4]);
  });
});
