/**
 * The buffer actor: the one holder of a training run's data. Producers offer whole trajectory
 * groups (`offer`, or the `offers` observer); the learner takes a step's groups (`batch`) once
 * all of them are ready, and tells the buffer its new version when it publishes (`advance`).
 * The ledger is machines/trajectory-buffer.machine.ts (keys, versions, counts, JSON); this actor
 * keeps the ready groups' episodes beside it and drops them with their keys.
 *
 * RxJS faces: `room$` (free room in groups, for producers to wait on before starting work),
 * `dropped$` (stale and duplicate offers: a stale group's key must be collected again) and
 * `changes$` (the snapshot, when a step is complete, taken, or a group dropped; never per episode).
 */
import { BehaviorSubject, Subject, type Observable, type Observer } from 'rxjs';
import { createActor } from 'xstate';
import {
  hasRoom,
  missing,
  readyCount,
  room,
  stepReady,
  trajectoryBufferMachine,
  type TrajectoryBufferContext,
  type TrajectoryBufferEmitted,
  type TrajectoryBufferEvent,
  type TrajectoryBufferInput,
} from '../../machines/trajectory-buffer.machine.ts';
import { groupKey, type TrajectoryGroup } from '../../learner/trajectory-group.ts';
import type { BufferChanged } from '../../streams/training-events.ts';

/** The buffer's numbers, as `buffer.changed` carries them (streams/training-events.ts). */
export type BufferSnapshot = Omit<BufferChanged, 'type' | 't'>;

export type GroupDropped = Extract<TrajectoryBufferEmitted, { type: 'group.dropped' }>;

interface Waiter {
  readonly resolve: (groups: readonly TrajectoryGroup[]) => void;
  readonly reject: (error: Error) => void;
}

export class TrajectoryBuffer {
  readonly #actor;
  readonly #groups = new Map<string, TrajectoryGroup>();
  readonly #waiters = new Map<number, Waiter[]>();
  readonly #failures = new Map<number, Error>();
  readonly #room: BehaviorSubject<number>;
  readonly #dropped = new Subject<GroupDropped>();
  readonly #changes = new Subject<BufferSnapshot>();
  /** Producers' face: each `next` is an offer. */
  readonly offers: Observer<TrajectoryGroup> = { next: (group) => this.offer(group), error: () => {}, complete: () => {} };

  constructor(input: TrajectoryBufferInput) {
    this.#actor = createActor(trajectoryBufferMachine, { input }).start();
    this.#room = new BehaviorSubject(room(this.#context));
    this.#actor.on('group.dropped', (e) => {
      // A duplicate leaves the first offer in place; a stale group leaves with its key.
      if (e.reason === 'stale') this.#groups.delete(groupKey(e));
      this.#dropped.next(e);
    });
  }

  get #context(): TrajectoryBufferContext {
    return this.#actor.getSnapshot().context;
  }

  get room$(): Observable<number> {
    return this.#room.asObservable();
  }

  get room(): number {
    return room(this.#context);
  }

  /** Whether work of `groups` more groups fits now (a producer waits on `room$` otherwise). */
  hasRoom(groups = 1): boolean {
    return hasRoom(this.#context, groups);
  }

  get dropped$(): Observable<GroupDropped> {
    return this.#dropped.asObservable();
  }

  get changes$(): Observable<BufferSnapshot> {
    return this.#changes.asObservable();
  }

  get learnerVersion(): number {
    return this.#context.learnerVersion;
  }

  snapshot(): BufferSnapshot {
    const c = this.#context;
    return {
      fill: c.entries.length, capacity: c.capacity, ready: readyCount(c), trained: c.counts.trained,
      droppedStale: c.counts.droppedStale, droppedDuplicate: c.counts.droppedDuplicate, stalenessHistogram: c.stalenessHistogram,
      learnerVersion: c.learnerVersion, takenThrough: c.takenThrough,
    };
  }

  /** The keys of `step` that are neither asked of a producer nor ready. */
  missing(step: number): number[] {
    return missing(this.#context, step);
  }

  /** Reserves room for work handed to a producer (its groups are then pending). */
  request(step: number, indices: readonly number[]): void {
    this.#send({ type: 'REQUEST', step, indices });
  }

  /** Frees the room of work a producer will not deliver (it failed, or was stopped). */
  cancel(step: number, indices: readonly number[]): void {
    this.#send({ type: 'CANCEL', step, indices });
  }

  /** A producer's whole group: kept when ready, dropped (and counted) when stale or a duplicate. */
  offer(group: TrajectoryGroup): void {
    const before = this.#context.counts;
    const { step, index, policyVersion, producer } = group;
    this.#send({ type: 'OFFER', group: { step, index, policyVersion, producer } });
    const after = this.#context.counts;
    if (after.droppedStale === before.droppedStale && after.droppedDuplicate === before.droppedDuplicate) this.#groups.set(groupKey(group), group);
    if (stepReady(this.#context, step)) this.#changed();
    this.#settle(step);
  }

  /** The learner published `version`: groups it makes too stale are dropped (and collected again). */
  advance(version: number): void {
    const stale = this.#context.counts.droppedStale;
    this.#send({ type: 'ADVANCE', version });
    if (this.#context.counts.droppedStale > stale) this.#changed();
  }

  /** `step` cannot be filled: whoever waits for it, or will, hears `error`. */
  fail(step: number, error: Error): void {
    this.#failures.set(step, error);
    this.#settle(step);
  }

  /** Resolves with the step's groups (in index order, left in the buffer) once all are ready; rejects on `fail` or `signal`. */
  ready(step: number, signal?: AbortSignal): Promise<readonly TrajectoryGroup[]> {
    return new Promise((resolve, reject) => {
      const stopped = (): Error => (signal?.reason instanceof Error ? signal.reason : new Error(`waiting for step ${step} stopped`));
      if (signal?.aborted) {
        reject(stopped());
        return;
      }
      const onAbort = (): void => {
        this.#waiters.set(step, (this.#waiters.get(step) ?? []).filter((w) => w !== waiter));
        reject(stopped());
      };
      // The listener goes with the wait: one run signal sees every step's waits.
      const waiter: Waiter = {
        resolve: (groups) => { signal?.removeEventListener('abort', onAbort); resolve(groups); },
        reject: (error) => { signal?.removeEventListener('abort', onAbort); reject(error); },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.set(step, [...(this.#waiters.get(step) ?? []), waiter]);
      this.#settle(step);
    });
  }

  /** Hands the step's groups to the learner, removing them, once all are ready. */
  async batch(step: number, signal?: AbortSignal): Promise<TrajectoryGroup[]> {
    const groups = await this.ready(step, signal);
    this.#send({ type: 'TAKE', step });
    if (this.#context.takenThrough !== step) throw new Error(`buffer: step ${step} cannot be taken after step ${this.#context.takenThrough}`);
    for (const group of groups) this.#groups.delete(groupKey(group));
    this.#changed();
    return [...groups];
  }

  #settle(step: number): void {
    const waiters = this.#waiters.get(step);
    if (waiters === undefined) return;
    const failure = this.#failures.get(step);
    if (failure === undefined && !stepReady(this.#context, step)) return;
    this.#waiters.delete(step);
    if (failure !== undefined) {
      for (const w of waiters) w.reject(failure);
      return;
    }
    const groups = [...this.#groups.values()].filter((g) => g.step === step).sort((a, b) => a.index - b.index);
    for (const w of waiters) w.resolve(groups);
  }

  #send(event: TrajectoryBufferEvent): void {
    this.#actor.send(event);
    const free = room(this.#context);
    if (free !== this.#room.value) this.#room.next(free);
  }

  #changed(): void {
    this.#changes.next(this.snapshot());
  }
}
