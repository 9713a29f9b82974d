/**
 * One `produce` call of the remote producer: the step's groups still to hand out, the ones that
 * arrived (each offered to the buffer exactly once: a duplicate is ignored), and how many times
 * each group was handed out, so a group no worker can finish fails the step instead of looping.
 */
import { groupKey, type TrajectoryGroup } from '../../learner/trajectory-group.ts';

/** What one producer is asked to collect (structurally actors/buffer/producer.ts's StepWork, which this room may not import). */
export interface RemoteStepWork {
  readonly step: number;
  readonly horizon: number;
  readonly groups: readonly number[];
}

export class StepJob {
  /** Group indices not yet handed to a worker, in order. */
  readonly pending: number[];
  readonly #received = new Set<string>();
  readonly #attempts = new Map<number, number>();
  #settled = false;

  constructor(
    readonly work: RemoteStepWork,
    private readonly offer: (group: TrajectoryGroup) => void,
    private readonly maxAttempts: number,
    private readonly resolve: () => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.pending = [...work.groups];
    if (this.pending.length === 0) this.finish();
  }

  get settled(): boolean {
    return this.#settled;
  }

  has(index: number): boolean {
    return this.#received.has(groupKey({ step: this.work.step, index }));
  }

  /** Offers a group once; returns false for a duplicate (same step and index). Settles the job when it was the last. */
  accept(group: TrajectoryGroup): boolean {
    const key = groupKey(group);
    if (this.#settled || this.#received.has(key)) return false;
    this.#received.add(key);
    try {
      this.offer(group);
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return true;
    }
    if (this.#received.size === this.work.groups.length) this.finish();
    return true;
  }

  /** Counts a hand-out of these groups. */
  handedOut(indices: readonly number[]): void {
    for (const index of indices) this.#attempts.set(index, (this.#attempts.get(index) ?? 0) + 1);
  }

  /**
   * Puts the groups of an assignment that did not arrive back in front of the queue. Rejects the
   * job when one of them was already handed out `maxAttempts` times.
   */
  requeue(indices: readonly number[], why: string): void {
    if (this.#settled) return;
    const missing = indices.filter((index) => !this.has(index));
    const exhausted = missing.find((index) => (this.#attempts.get(index) ?? 0) >= this.maxAttempts);
    if (exhausted !== undefined) {
      return this.fail(new Error(`step ${this.work.step}: group ${exhausted} was handed out ${this.maxAttempts} times and never arrived (last: ${why})`));
    }
    this.pending.unshift(...missing.filter((index) => !this.pending.includes(index)));
  }

  fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.pending.length = 0;
    this.reject(error);
  }

  private finish(): void {
    this.#settled = true;
    this.resolve();
  }
}
