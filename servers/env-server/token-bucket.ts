/**
 * A token bucket: `burst` frames at once, refilled at `perSecond`. One bucket per connection,
 * so one noisy client cannot starve the others. Time comes from an injected clock (ms).
 *
 * With `closeAfter`, a refused frame also takes a token, into debt: a client that was told
 * `RATE_LIMITED` and slows down recovers as the bucket refills, while one that keeps flooding
 * reaches `-closeAfter` tokens and is to be disconnected (each refused frame still costs the
 * server a decode and a reply, so refusing alone would let it keep the server busy).
 */
export interface RateLimit {
  /** Sustained frames per second. */
  readonly perSecond: number;
  /** Frames that may arrive at once after a quiet period. */
  readonly burst: number;
  /** Frames refused beyond the refill after which the connection is closed (1008). None: never closed. */
  readonly closeAfter?: number;
}

/** `ok`: go ahead; `limited`: answer `RATE_LIMITED`; `close`: close the connection. */
export type BucketVerdict = 'ok' | 'limited' | 'close';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {
    this.tokens = limit.burst;
    this.last = now();
  }

  /** Takes one token for a frame and says what to do with it. */
  take(): BucketVerdict {
    const now = this.now();
    const refill = ((now - this.last) * this.limit.perSecond) / 1000;
    this.last = now;
    this.tokens = Math.min(this.limit.burst, this.tokens + refill);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 'ok';
    }
    const { closeAfter } = this.limit;
    if (closeAfter === undefined) return 'limited';
    this.tokens -= 1;
    return this.tokens <= -closeAfter ? 'close' : 'limited';
  }
}

/**
 * What `--rate-limit N` means: N frames/s sustained, bursts of a tenth of a second's worth (a
 * client with many episodes sends a step for each of them at once), and a connection that goes
 * on sending a further second's worth beyond the refill once limited is closed. 0 disables.
 */
export function rateLimitOf(perSecond: number): RateLimit | false {
  if (perSecond <= 0) return false;
  return { perSecond, burst: Math.max(1, Math.ceil(perSecond / 10)), closeAfter: perSecond };
}
