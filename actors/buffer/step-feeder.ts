/**
 * Keeps a producer working for the buffer: hands it a step's work when the learner wants the step
 * (`want`, from the learner's collect effect) and, in asynchronous training, up to `ahead` steps
 * beyond it, each only when the buffer has room for all its groups. Groups the buffer drops as
 * stale are collected again first, at the horizon their step was first collected at.
 *
 * With `ahead` = 0 a step's collection starts only when the learner asks for it, after the
 * previous step's weights were published and the curriculum decided its horizon: synchronous
 * training, exactly as before the buffer. With `ahead` = K the producer starts step t while the
 * learner collects or trains step t − K at the earliest, so t − 1 − (learner's version) ≤ K.
 *
 * With `ahead` = K ≥ 1 up to K + 1 pieces of work run at once (steps t … t + K while the learner
 * waits for step t), so collections overlap each other as well as the learner's update: behind a
 * latency-bound policy one collection at a time caps the gain at (rollout + learn) / max(rollout,
 * learn). A step is sampled with the weights its producer holds when its work starts, so step s
 * starts beside running work only if the producer's version now is ≥ s − 1 − K; otherwise it waits
 * until the running work is done, when the producer takes the newest version (the local producer
 * applies staged weights only with no collection running: one policy, one version per group).
 * With K = 0 one piece of work at a time, exactly as before.
 * A production that fails fails its step in the buffer (the learner's collect rejects with it);
 * one that ends without some of its groups and was not stopped fails the step too.
 */
import type { Subscription } from 'rxjs';
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { errorMessage } from '../../envs/error-message.ts';
import type { Producer, StepWork } from './producer.ts';
import type { TrajectoryBuffer } from './trajectory-buffer.ts';

export interface StepFeederOptions {
  readonly buffer: TrajectoryBuffer;
  readonly producer: Producer;
  readonly groupsPerStep: number;
  /** Steps the producer may run ahead of the step the learner wants (maxStaleness; 0 when synchronous). */
  readonly ahead: number;
  /** The run's last step: nothing beyond it is collected. */
  readonly lastStep: number;
  /** The step the learner trains next (a resumed run's checkpoint step + 1). */
  readonly firstStep: number;
  /** The curriculum's horizon now, for a step started now. */
  readonly horizon: () => number;
  /** Stops the production (the run stops). */
  readonly signal: AbortSignal;
}

export class StepFeeder {
  readonly #o: StepFeederOptions;
  readonly #horizons = new Map<number, number>();
  readonly #subscriptions: Subscription[] = [];
  /** Steps whose groups were dropped as stale and must be collected again. */
  readonly #redo = new Set<number>();
  #wanted = 0;
  #next: number;
  #inFlight = 0;
  /** Set while `#pump` hands out work: the buffer's room$ calls it back from inside (`request`). */
  #pumping = false;
  /** Highest step a production was started for (tests read it: never more than `ahead` past `wanted`). */
  furthestStarted = 0;
  /** Most productions running at once (tests read it: never more than `ahead` + 1). */
  mostInFlight = 0;

  constructor(options: StepFeederOptions) {
    this.#o = options;
    this.#next = options.firstStep;
    this.#subscriptions.push(
      options.buffer.dropped$.subscribe((dropped) => {
        if (dropped.reason !== 'stale') return;
        this.#redo.add(dropped.step);
        this.#pump();
      }),
      options.buffer.room$.subscribe(() => this.#pump()),
    );
  }

  /** The learner collects `step` now: its work goes out if it has not. */
  want(step: number): void {
    this.#wanted = Math.max(this.#wanted, step);
    this.#pump();
  }

  dispose(): void {
    for (const s of this.#subscriptions) s.unsubscribe();
  }

  /**
   * Whether work for `step` may start now: always with nothing running (the producer then takes the
   * newest version, the learner's, ≥ wanted − 1 ≥ step − 1 − K); beside running work only if the
   * version the producer holds keeps the step within K versions of the learner that will train it.
   */
  #fresh(step: number): boolean {
    return this.#inFlight === 0 || this.#o.producer.version >= step - 1 - this.#o.ahead;
  }

  #nextWork(): StepWork | undefined {
    const { buffer, groupsPerStep } = this.#o;
    for (const step of [...this.#redo].sort((a, b) => a - b)) {
      const groups = buffer.missing(step);
      if (groups.length === 0) {
        this.#redo.delete(step);
        continue;
      }
      if (!buffer.hasRoom(groups.length) || !this.#fresh(step)) return undefined;
      this.#redo.delete(step);
      return { step, horizon: this.#horizons.get(step) ?? this.#o.horizon(), groups };
    }
    const step = this.#next;
    if (step > this.#o.lastStep || step > this.#wanted + this.#o.ahead || this.#wanted === 0) return undefined;
    if (!buffer.hasRoom(groupsPerStep) && step !== this.#wanted) return undefined;
    if (!this.#fresh(step)) return undefined;
    this.#next += 1;
    const horizon = this.#o.horizon();
    this.#horizons.set(step, horizon);
    return { step, horizon, groups: Array.from({ length: groupsPerStep }, (_, i) => i) };
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      const most = this.#o.ahead + 1;
      while (this.#inFlight < most && !this.#o.signal.aborted) {
        const work = this.#nextWork();
        if (work === undefined) return;
        this.#inFlight += 1;
        this.mostInFlight = Math.max(this.mostInFlight, this.#inFlight);
        this.furthestStarted = Math.max(this.furthestStarted, work.step);
        void this.#run(work).finally(() => {
          this.#inFlight -= 1;
          this.#pump();
        });
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #run(work: StepWork): Promise<void> {
    const { buffer, producer, signal } = this.#o;
    buffer.request(work.step, work.groups);
    const offered = new Set<number>();
    const offer = (group: TrajectoryGroup): void => {
      if (group.step === work.step) offered.add(group.index);
      buffer.offer(group);
    };
    try {
      await producer.produce(work, offer, signal);
      const left = work.groups.filter((index) => !offered.has(index));
      if (left.length === 0) return;
      buffer.cancel(work.step, left);
      if (!signal.aborted) buffer.fail(work.step, new Error(`producer ${producer.name} finished step ${work.step} without group(s) ${left.join(', ')}`));
    } catch (error) {
      buffer.cancel(work.step, work.groups.filter((index) => !offered.has(index)));
      buffer.fail(work.step, error instanceof Error ? error : new Error(errorMessage(error)));
    } finally {
      this.#horizons.forEach((_, step) => {
        if (step <= buffer.snapshot().takenThrough) this.#horizons.delete(step);
      });
    }
  }
}
