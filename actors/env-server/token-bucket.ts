/**
 * A token bucket: `burst` frames at once, refilled at `perSecond`. One bucket per connection,
 * so one noisy client cannot starve the others. Time comes from an injected clock (ms).
 */
export interface RateLimit {
  /** Sustained frames per second. */
  readonly perSecond: number;
  /** Frames that may arrive at once after a quiet period. */
  readonly burst: number;
}

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

  /** Takes one token; false when the bucket is empty (the frame is over the limit). */
  take(): boolean {
    const now = this.now();
    const refill = ((now - this.last) * this.limit.perSecond) / 1000;
    this.last = now;
    this.tokens = Math.min(this.limit.burst, this.tokens + refill);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
