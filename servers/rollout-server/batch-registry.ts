/**
 * The batches the service runs now, by id, so `DELETE /v1/rollouts/{id}` and a draining service
 * can cancel them, and `/readyz` can say when the service is full. A request holds its place from
 * the moment it is admitted (before its env is opened), so a burst cannot overshoot the cap.
 */
import type { BatchEnd, RunningBatch } from './batch-runner.ts';

export class BatchRegistry {
  readonly #running = new Map<string, RunningBatch>();
  #admitted = 0;

  constructor(readonly maxBatches: number) {}

  /** Batches admitted and not yet ended (started or still opening their env). */
  get size(): number {
    return this.#admitted;
  }

  get full(): boolean {
    return this.#admitted >= this.maxBatches;
  }

  /** Takes a place; false when the service is full. Every true must be matched by one `leave`. */
  admit(): boolean {
    if (this.full) return false;
    this.#admitted += 1;
    return true;
  }

  /** The admitted request's batch has started. */
  started(id: string, batch: RunningBatch): void {
    this.#running.set(id, batch);
  }

  /** The admitted request is over (its batch ended, or it was refused before starting). */
  leave(id: string | undefined): void {
    this.#admitted -= 1;
    if (id !== undefined) this.#running.delete(id);
  }

  /** Cancels a running batch; false for an id not running. */
  cancel(id: string, reason: string): boolean {
    const batch = this.#running.get(id);
    if (batch === undefined) return false;
    batch.cancel(reason);
    return true;
  }

  /** Every running batch's end. */
  ends(): Promise<BatchEnd>[] {
    return [...this.#running.values()].map((batch) => batch.done);
  }

  cancelAll(reason: string): void {
    for (const batch of this.#running.values()) batch.cancel(reason);
  }
}
