/**
 * How a stop reaches a training run: before the learner starts it is remembered and applied as
 * soon as the learner runs; while the learner runs it stops the learner (and its rollout); during
 * the final test evaluation it aborts `evaluation`.
 */
export class TrainingStop {
  /** Aborted by a stop: ends the final test evaluation early (no new episodes, running ones aborted). */
  readonly evaluation = new AbortController();
  #requested: string | undefined;
  #learner: ((reason: string) => void) | undefined;

  get requested(): string | undefined {
    return this.#requested;
  }

  request(reason: string): void {
    this.#requested = reason;
    this.evaluation.abort(new Error(reason));
    this.#learner?.(reason);
  }

  /** The running learner's stop; a stop requested earlier is applied at once. */
  attachLearner(stopLearner: (reason: string) => void): void {
    this.#learner = stopLearner;
    if (this.#requested !== undefined) stopLearner(this.#requested);
  }

  detachLearner(): void {
    this.#learner = undefined;
  }
}
