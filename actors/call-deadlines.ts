/**
 * The deadlines of the calls running episodes wait on (machines/episode.machine.ts,
 * `CALL_DEADLINES`), enforced by one sweep per run instead of a timer per call: arming a deadline
 * is a field write, and a passed one is sent to its episode as ENV.FAILED / AGENT.FAILED with a
 * timeout reason. A deadline fires between its time and one sweep period later.
 *
 * The sweep timer is armed only while some deadline is pending and is not unref'd: a run waiting
 * on a hung call must stay alive until the deadline ends it.
 */
import { CALL_DEADLINES, type CallState, type EpisodeEvent, type EpisodeInput } from '../machines/episode.machine.ts';
import type { RunClock } from './clock.ts';

interface Target {
  send(event: EpisodeEvent): void;
}

interface Pending {
  at: number;
  state: CallState;
  target: Target;
}

/** Sweep period for the given timeouts: a quarter of the shortest, between 5 ms and 1 s. */
export function sweepPeriodMs(...timeoutsMs: number[]): number {
  return Math.max(5, Math.min(1_000, Math.min(...timeoutsMs) / 4));
}

export class CallDeadlines {
  // One mutable record per running episode, rewritten by every call: no allocation per call.
  private readonly pending = new Map<string, Pending>();
  private timer: unknown;

  constructor(
    private readonly clock: RunClock,
    private readonly periodMs: number,
  ) {}

  /** The episode now waits on the call of `state`; replaces its previous deadline. */
  arm(input: EpisodeInput, state: CallState, target: Target): void {
    const at = this.clock.now() + CALL_DEADLINES[state].timeoutMs(input);
    const entry = this.pending.get(input.episodeId);
    if (entry === undefined) this.pending.set(input.episodeId, { at, state, target });
    else {
      entry.at = at;
      entry.state = state;
      entry.target = target;
    }
    if (this.timer === undefined) this.timer = this.clock.setTimeout(this.sweep, this.periodMs);
  }

  /** The episode waits on nothing any more (it finished). */
  disarm(episodeId: string): void {
    this.pending.delete(episodeId);
  }

  get size(): number {
    return this.pending.size;
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const now = this.clock.now();
    for (const [episodeId, entry] of this.pending) {
      if (entry.at > now) continue;
      this.pending.delete(episodeId);
      const deadline = CALL_DEADLINES[entry.state];
      entry.target.send({ type: deadline.failure, reason: deadline.reason, error: deadline.error });
    }
    if (this.pending.size > 0 && this.timer === undefined) this.timer = this.clock.setTimeout(this.sweep, this.periodMs);
  };
}
