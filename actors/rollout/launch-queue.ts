/**
 * Launches the run machine asked for, started once its step is over. Creating and driving an
 * actor inside another actor's action runs its transitions while xstate marks a custom action as
 * executing, and xstate's dev build then warns about every `assign` they make ("Custom actions
 * should not call `assign()` directly"); so the machine's `startEpisode` only notes the launch.
 */
import type { EpisodeLaunch } from '../../machines/run.machine.ts';

export class LaunchQueue {
  readonly #waiting: EpisodeLaunch[] = [];
  #failure: Error | undefined;

  /** The first error of a launch that could not start: the run fails with it. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  push(launch: EpisodeLaunch): void {
    this.#waiting.push(launch);
  }

  /**
   * Starts the waiting launches in the order they were asked for. When `start` throws (e.g. the
   * env's `make()` threw), the error is kept and `onFailure` gets it with that launch; it may
   * `takeAll()` the ones still waiting.
   */
  drain(start: (launch: EpisodeLaunch) => void, onFailure: (error: unknown, launch: EpisodeLaunch) => void): void {
    for (let launch = this.#waiting.shift(); launch !== undefined; launch = this.#waiting.shift()) {
      try {
        start(launch);
      } catch (error) {
        this.#failure ??= error instanceof Error ? error : new Error(String(error));
        onFailure(error, launch);
      }
    }
  }

  takeAll(): EpisodeLaunch[] {
    return this.#waiting.splice(0);
  }
}
