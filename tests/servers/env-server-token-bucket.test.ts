/** The env server's per-connection rate limit (issue 24, finding 5: a limit that can trigger, with a flooder closed). */
import { describe, expect, it } from 'vitest';
import { rateLimitOf, TokenBucket } from '../../servers/env-server/token-bucket.ts';
import { RATE_LIMIT } from '../../transport/wire/limits.ts';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const takeMany = (bucket: TokenBucket, n: number) => Array.from({ length: n }, () => bucket.take());
const count = (verdicts: string[], verdict: string) => verdicts.filter((v) => v === verdict).length;

describe('TokenBucket', () => {
  it('lets a burst through, then refills at perSecond', () => {
    const time = clock();
    const bucket = new TokenBucket({ perSecond: 100, burst: 10 }, time.now);
    expect(count(takeMany(bucket, 15), 'ok')).toBe(10);
    time.advance(50); // 5 tokens
    expect(count(takeMany(bucket, 10), 'ok')).toBe(5);
    time.advance(60_000); // never more than the burst
    expect(count(takeMany(bucket, 20), 'ok')).toBe(10);
  });

  it('without closeAfter only refuses, however long the flood', () => {
    const bucket = new TokenBucket({ perSecond: 1, burst: 2 }, () => 0);
    const verdicts = takeMany(bucket, 10_000);
    expect(count(verdicts, 'ok')).toBe(2);
    expect(count(verdicts, 'close')).toBe(0);
  });

  it('with closeAfter, says close once refused frames run closeAfter beyond the refill', () => {
    const time = clock();
    const bucket = new TokenBucket({ perSecond: 1_000, burst: 10, closeAfter: 20 }, time.now);
    const verdicts = takeMany(bucket, 40);
    expect(verdicts.indexOf('close')).toBe(10 + 19);
    // A client that slows down after being refused recovers instead.
    const patient = new TokenBucket({ perSecond: 1_000, burst: 10, closeAfter: 20 }, time.now);
    expect(count(takeMany(patient, 25), 'limited')).toBe(15);
    time.advance(100); // 100 tokens of refill pay the debt of 15 and fill the burst
    expect(takeMany(patient, 10)).toEqual(Array(10).fill('ok'));
  });
});

describe('rateLimitOf (--rate-limit)', () => {
  it('gives the documented default, and 0 disables', () => {
    expect(rateLimitOf(RATE_LIMIT.perSecond)).toEqual(RATE_LIMIT);
    expect(rateLimitOf(0)).toBe(false);
    expect(rateLimitOf(5)).toEqual({ perSecond: 5, burst: 1, closeAfter: 5 });
  });
});
