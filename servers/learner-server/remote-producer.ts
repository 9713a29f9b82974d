/**
 * The learner server's producer (the `Producer` seam of actors/buffer/producer.ts, matched
 * structurally: servers may not import actors): it splits a step's groups among the connected
 * workers, one assignment per worker at a time, offers each group that arrives to the buffer,
 * and when a worker leaves or fails mid-assignment hands the groups that had not arrived to
 * another worker (or keeps them until one connects). Groups that arrived are kept; a duplicate
 * (same step and index) is ignored. With no worker connected, work waits.
 */
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { LEARNER_MAX_GROUP_ATTEMPTS } from '../../transport/learner-wire/limits.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { StepJob, type RemoteStepWork } from './step-job.ts';

/** What the producer needs of a worker's connection. */
export interface WorkerPeer {
  readonly name: string;
  assign(frame: { readonly id: string; readonly step: number; readonly horizon: number; readonly groups: readonly number[] }): void;
  cancel(id: string): void;
}

interface Assignment {
  readonly id: string;
  readonly job: StepJob;
  readonly worker: WorkerPeer;
  readonly groups: readonly number[];
}

/** Why a worker's frame about an assignment was refused (the connection answers it with an error frame). */
export interface Refusal {
  readonly code: 'ASSIGNMENT_UNKNOWN' | 'BAD_GROUP';
  readonly message: string;
}

export interface RemoteProducerCounters {
  groups: number;
  duplicates: number;
  reassigned: number;
  assignments: number;
}

export class RemoteProducer {
  readonly name = 'remote';
  readonly counters: RemoteProducerCounters = { groups: 0, duplicates: 0, reassigned: 0, assignments: 0 };
  #version: number;
  #seq = 0;
  readonly #workers = new Set<WorkerPeer>();
  readonly #jobs: StepJob[] = [];
  readonly #assignments = new Map<string, Assignment>();
  /** Each worker's assignment under way (one at a time); a finished one whose `done` has not come yet no longer counts. */
  readonly #busy = new Map<WorkerPeer, Assignment>();

  constructor(
    version: number,
    private readonly log: OpsLog = () => {},
    private readonly maxAttempts = LEARNER_MAX_GROUP_ATTEMPTS,
  ) {
    this.#version = version;
  }

  /** The version workers sample with from their next assignment on (the last published). */
  get version(): number {
    return this.#version;
  }

  set version(version: number) {
    this.#version = version;
  }

  get workers(): number {
    return this.#workers.size;
  }

  get inFlight(): number {
    return this.#assignments.size;
  }

  /** Collects `work` through the workers; resolves once every group was offered. */
  produce(work: RemoteStepWork, offer: (group: TrajectoryGroup) => void, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortError(work.step));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => job.fail(abortError(work.step));
      const job = new StepJob(work, offer, this.maxAttempts, () => {
        signal.removeEventListener('abort', onAbort);
        this.forget(job);
        resolve();
      }, (error) => {
        signal.removeEventListener('abort', onAbort);
        this.abandon(job);
        reject(error);
      });
      if (job.settled) return;
      signal.addEventListener('abort', onAbort, { once: true });
      this.#jobs.push(job);
      this.dispatch();
    });
  }

  join(worker: WorkerPeer): void {
    this.#workers.add(worker);
    this.dispatch();
  }

  /** A worker left: its assignment's groups that had not arrived go to another worker. */
  leave(worker: WorkerPeer): void {
    this.#workers.delete(worker);
    for (const assignment of [...this.#assignments.values()]) {
      if (assignment.worker === worker) this.release(assignment, `worker ${worker.name} left`);
    }
    this.dispatch();
  }

  /** A group from `worker` for assignment `id`, already validated against the group schema. */
  group(worker: WorkerPeer, id: string, group: TrajectoryGroup): Refusal | undefined {
    const assignment = this.#assignments.get(id);
    if (!assignment || assignment.worker !== worker) return { code: 'ASSIGNMENT_UNKNOWN', message: `no assignment ${id} is held by this worker (cancelled, finished or never made)` };
    const { job } = assignment;
    if (group.step !== job.work.step || !assignment.groups.includes(group.index)) {
      return { code: 'BAD_GROUP', message: `group ${group.step}/${group.index} is not part of assignment ${id} (step ${job.work.step}, groups ${assignment.groups.join(', ')})` };
    }
    if (job.accept(group)) this.counters.groups++;
    else this.counters.duplicates++;
    // Its last group is in: the worker is free for the next step now, not when its `done` comes.
    if (this.#busy.get(worker) === assignment && assignment.groups.every((index) => job.has(index))) {
      this.#busy.delete(worker);
      this.dispatch();
    }
    return undefined;
  }

  /** The worker finished assignment `id` (`done`), or gave up on it (`failed`). */
  finished(worker: WorkerPeer, id: string, failure?: string): Refusal | undefined {
    const assignment = this.#assignments.get(id);
    if (!assignment || assignment.worker !== worker) return { code: 'ASSIGNMENT_UNKNOWN', message: `no assignment ${id} is held by this worker` };
    this.release(assignment, failure === undefined ? `worker ${worker.name} said done without them` : `worker ${worker.name} failed: ${failure}`);
    this.dispatch();
    return undefined;
  }

  /** Rejects every job (the server is closing). */
  close(error: Error): void {
    for (const job of [...this.#jobs]) job.fail(error);
  }

  /** Hands each idle worker a share of the oldest job's groups still to do. */
  private dispatch(): void {
    for (const job of this.#jobs) {
      const idle = [...this.#workers].filter((worker) => !this.#busy.has(worker));
      if (idle.length === 0) return;
      if (job.settled || job.pending.length === 0) continue;
      const share = Math.ceil(job.pending.length / idle.length);
      for (const worker of idle) {
        if (job.pending.length === 0) break;
        this.assign(job, worker, job.pending.splice(0, share));
      }
    }
  }

  private assign(job: StepJob, worker: WorkerPeer, groups: readonly number[]): void {
    const assignment: Assignment = { id: `a${++this.#seq}`, job, worker, groups };
    this.#assignments.set(assignment.id, assignment);
    this.#busy.set(worker, assignment);
    this.counters.assignments++;
    job.handedOut(groups);
    worker.assign({ id: assignment.id, step: job.work.step, horizon: job.work.horizon, groups });
  }

  private release(assignment: Assignment, why: string): void {
    this.#assignments.delete(assignment.id);
    if (this.#busy.get(assignment.worker) === assignment) this.#busy.delete(assignment.worker);
    const missing = assignment.groups.filter((index) => !assignment.job.has(index));
    if (missing.length === 0 || assignment.job.settled) return;
    this.counters.reassigned += missing.length;
    this.log('assignment.requeued', { id: assignment.id, step: assignment.job.work.step, groups: missing.join(','), why });
    assignment.job.requeue(missing, why);
  }

  /** Drops a failed job and cancels what its workers still hold of it. */
  private abandon(job: StepJob): void {
    for (const assignment of [...this.#assignments.values()]) {
      if (assignment.job !== job) continue;
      this.#assignments.delete(assignment.id);
      if (this.#busy.get(assignment.worker) === assignment) this.#busy.delete(assignment.worker);
      assignment.worker.cancel(assignment.id);
    }
    this.forget(job);
    this.dispatch();
  }

  private forget(job: StepJob): void {
    const at = this.#jobs.indexOf(job);
    if (at >= 0) this.#jobs.splice(at, 1);
  }
}

function abortError(step: number): Error {
  const error = new Error(`step ${step}: the remote collection was cancelled`);
  error.name = 'AbortError';
  return error;
}
