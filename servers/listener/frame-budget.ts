/**
 * A server-wide frame budget shared fairly between connections (issue 40, finding 2: 64
 * connections, each under its own rate limit, kept the event loop busy enough that `/readyz`
 * went unanswered for 15 s). Three rules:
 *
 * - **a token bucket over all connections**: at most `perSecond` frames run per second, bursts
 *   of `burst`;
 * - **round-robin**: when frames wait, each connection (a *lane*) runs one frame per round, so a
 *   connection's share is an equal part of the budget whatever the others send, and an honest
 *   client's frame waits at most one round;
 * - **slices**: frame work runs at most `sliceMs` per event-loop turn, then yields, so accepts,
 *   health probes and the other sockets' reads get their turn between slices.
 *
 * A lane whose queue is long is paused (its socket stops being read: its peer waits in TCP,
 * not in our memory) and resumed when it has room. A lane whose peer does not read its replies
 * is *blocked* (`LaneHooks.blocked`): none of its frames run until its socket drains, so a peer
 * that never reads cannot make the server queue replies for it.
 *
 * When nothing waits and the budget has tokens, a frame runs at once, without a queue.
 */

export interface FrameBudgetOptions {
  /** Frames per second over all lanes. */
  readonly perSecond: number;
  /** Frames that may run at once after a quiet period. */
  readonly burst: number;
  /** Longest stretch of frame work in one event-loop turn (ms) before yielding to I/O. */
  readonly sliceMs: number;
  /** Frames one lane may hold waiting before its socket is paused. */
  readonly maxQueuedFrames: number;
  /** Bytes one lane may hold waiting before its socket is paused. */
  readonly maxQueuedBytes: number;
  /** Clock (ms). Default `performance.now`. */
  readonly now?: () => number;
}

/** What a lane does with its frames, and how it is held back. */
export interface LaneHooks<F> {
  run(frame: F): void;
  /** True while none of this lane's frames may run (its peer is not reading its replies). */
  blocked(): boolean;
  /** Stop reading from the peer / start again. */
  pause(): void;
  resume(): void;
}

/** A frame as the budget sees it: its size in bytes. */
export interface SizedFrame {
  readonly length: number;
}

/** How often blocked lanes are looked at again, besides their socket's `drain` (ms). */
const RECHECK_BLOCKED_MS = 100;

export class FrameBudget {
  #tokens: number;
  #last: number;
  readonly #ring: Lane<SizedFrame>[] = [];
  readonly #blocked = new Set<Lane<SizedFrame>>();
  #scheduled: 'immediate' | 'timer' | undefined;
  #recheck: NodeJS.Timeout | undefined;
  #turnStart = -Infinity;
  #inTurn = false;
  readonly #now: () => number;
  /** Frames that waited in a queue, and bytes waiting now over all lanes. */
  readonly stats = { queued: 0, queuedBytes: 0, peakQueuedBytes: 0, pauses: 0 };

  constructor(readonly options: FrameBudgetOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = options.burst;
    this.#last = this.#now();
  }

  lane<F extends SizedFrame>(hooks: LaneHooks<F>): Lane<F> {
    return new Lane(this, hooks);
  }

  /** Stops the timers (shutdown). */
  stop(): void {
    clearInterval(this.#recheck);
    this.#recheck = undefined;
  }

  /** @internal A frame may run now without a queue: nothing waits, the slice has time, a token is there. */
  tryRunNow(): boolean {
    if (this.#ring.length > 0 || !this.sliceLeft()) return false;
    return this.take();
  }

  /** @internal */
  enqueued(lane: Lane<SizedFrame>, bytes: number): void {
    this.stats.queued++;
    this.stats.queuedBytes += bytes;
    if (this.stats.queuedBytes > this.stats.peakQueuedBytes) this.stats.peakQueuedBytes = this.stats.queuedBytes;
    if (!lane.inRing && !lane.isBlocked) this.ready(lane);
  }

  /** @internal */
  dequeued(bytes: number): void {
    this.stats.queuedBytes -= bytes;
  }

  /** @internal The lane has frames and may run them. */
  ready(lane: Lane<SizedFrame>): void {
    this.#blocked.delete(lane);
    lane.isBlocked = false;
    if (!lane.inRing) {
      lane.inRing = true;
      this.#ring.push(lane);
    }
    this.schedule();
  }

  /** @internal The lane's peer is not reading: it waits for its socket's drain (or the recheck). */
  block(lane: Lane<SizedFrame>): void {
    lane.isBlocked = true;
    this.#blocked.add(lane);
    this.#recheck ??= setInterval(() => this.recheckBlocked(), RECHECK_BLOCKED_MS);
    this.#recheck.unref();
  }

  /** @internal */
  forget(lane: Lane<SizedFrame>): void {
    this.#blocked.delete(lane);
  }

  private recheckBlocked(): void {
    for (const lane of this.#blocked) if (lane.closed || !lane.hooksBlocked()) lane.unblocked();
    if (this.#blocked.size === 0) this.stop();
  }

  private sliceLeft(): boolean {
    if (!this.#inTurn) {
      // The first frame of an event-loop turn starts its slice; the turn ends at the next check phase.
      this.#inTurn = true;
      this.#turnStart = this.#now();
      setImmediate(() => (this.#inTurn = false));
      return true;
    }
    return this.#now() - this.#turnStart < this.options.sliceMs;
  }

  private refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.options.burst, this.#tokens + ((now - this.#last) * this.options.perSecond) / 1000);
    this.#last = now;
  }

  private take(): boolean {
    this.refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  private schedule(): void {
    if (this.#scheduled !== undefined || this.#ring.length === 0) return;
    this.refill();
    if (this.#tokens >= 1) {
      this.#scheduled = 'immediate';
      setImmediate(() => this.pump());
      return;
    }
    // Out of tokens: wake when the next one has come.
    this.#scheduled = 'timer';
    setTimeout(() => this.pump(), Math.max(1, Math.ceil(1000 / this.options.perSecond))).unref();
  }

  /** One slice: a frame per lane per round, while tokens and the slice last. */
  private pump(): void {
    this.#scheduled = undefined;
    let ran = 0;
    while (this.#ring.length > 0) {
      // The clock is read every 8 frames: cheap, and a slice overruns by a few frames at most.
      if ((ran & 7) === 0 && !this.sliceLeft()) break;
      const lane = this.#ring.shift() as Lane<SizedFrame>;
      lane.inRing = false;
      if (lane.closed || !lane.hasWork) continue;
      if (lane.hooksBlocked()) {
        this.block(lane);
        continue;
      }
      if (!this.take()) {
        this.#ring.unshift(lane);
        lane.inRing = true;
        break;
      }
      lane.runNext();
      ran++;
      if (lane.hasWork && !lane.closed) {
        lane.inRing = true;
        this.#ring.push(lane);
      }
    }
    this.schedule();
  }
}

/** One connection's frames: run at once when the budget allows, else queued in arrival order. */
export class Lane<F extends SizedFrame> {
  readonly #queue: F[] = [];
  #head = 0;
  #bytes = 0;
  #paused = false;
  /** @internal */ inRing = false;
  /** @internal */ isBlocked = false;
  closed = false;

  constructor(
    private readonly budget: FrameBudget,
    private readonly hooks: LaneHooks<F>,
  ) {}

  /** @internal */
  get hasWork(): boolean {
    return this.#head < this.#queue.length;
  }

  /** Frames waiting now. */
  get waiting(): number {
    return this.#queue.length - this.#head;
  }

  /** A frame from the peer: runs now, or waits its turn (pausing the peer when too many wait). */
  submit(frame: F): void {
    if (this.closed) return;
    if (!this.hasWork && !this.hooks.blocked() && this.budget.tryRunNow()) return this.hooks.run(frame);
    this.#queue.push(frame);
    this.#bytes += frame.length;
    this.budget.enqueued(this as unknown as Lane<SizedFrame>, frame.length);
    if (!this.isBlocked && this.hooks.blocked()) this.budget.block(this as unknown as Lane<SizedFrame>);
    const { maxQueuedFrames, maxQueuedBytes } = this.budget.options;
    if (!this.#paused && (this.waiting >= maxQueuedFrames || this.#bytes >= maxQueuedBytes)) {
      this.#paused = true;
      this.budget.stats.pauses++;
      this.hooks.pause();
    }
  }

  /** The peer's socket drained: its frames may run again. */
  unblocked(): void {
    if (this.closed || !this.isBlocked || this.hooks.blocked()) return;
    this.budget.forget(this as unknown as Lane<SizedFrame>);
    this.isBlocked = false;
    if (this.hasWork) this.budget.ready(this as unknown as Lane<SizedFrame>);
  }

  /** The connection closed: its waiting frames are dropped. */
  close(): void {
    this.closed = true;
    this.budget.dequeued(this.#bytes);
    this.budget.forget(this as unknown as Lane<SizedFrame>);
    this.#queue.length = 0;
    this.#head = 0;
    this.#bytes = 0;
  }

  /** @internal */
  hooksBlocked(): boolean {
    return this.hooks.blocked();
  }

  /** @internal Runs the oldest waiting frame; resumes the peer once half the room is free. */
  runNext(): void {
    const frame = this.#queue[this.#head] as F;
    this.#queue[this.#head] = undefined as unknown as F; // let it be collected before the queue is compacted
    this.#head++;
    this.#bytes -= frame.length;
    this.budget.dequeued(frame.length);
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    const { maxQueuedFrames, maxQueuedBytes } = this.budget.options;
    if (this.#paused && this.waiting <= maxQueuedFrames / 2 && this.#bytes <= maxQueuedBytes / 2) {
      this.#paused = false;
      this.hooks.resume();
    }
    this.hooks.run(frame);
  }
}
