import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, retryAfterMs } from '../../../policy/llm/backoff.ts';

const headers = (entries: Record<string, string>) => new Headers(entries);

describe('backoffDelay', () => {
  it('draws uniformly below a ceiling that doubles per retry (full jitter)', () => {
    const top = { baseMs: 100, maxMs: 10_000, random: () => 0.999999 };
    expect([0, 1, 2, 3].map((retry) => backoffDelay(retry, top))).toEqual([99, 199, 399, 799]);
    const half = { ...top, random: () => 0.5 };
    expect([0, 1, 2].map((retry) => backoffDelay(retry, half))).toEqual([50, 100, 200]);
    expect(backoffDelay(5, { ...top, random: () => 0 })).toBe(0);
  });

  it('never exceeds maxMs, even after many retries', () => {
    const options = { baseMs: 500, maxMs: 30_000, random: () => 0.999999 };
    expect(backoffDelay(6, options)).toBe(29_999);
    expect(backoffDelay(2000, options)).toBe(29_999);
  });

  it('uses the server’s Retry-After instead of the jitter, capped by maxMs', () => {
    const options = { baseMs: 500, maxMs: 30_000, random: () => 0.5 };
    expect(backoffDelay(0, options, 2_000)).toBe(2_000);
    expect(backoffDelay(3, options, 0)).toBe(0);
    expect(backoffDelay(0, options, 3_600_000)).toBe(30_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delay-seconds, fractions included', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
  });

  it('reads an HTTP date relative to now; a past date is 0', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  it('prefers retry-after-ms, then Retry-After, else nothing', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), 0)).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after-ms': 'x', 'retry-after': '9' }), 0)).toBe(9_000);
    expect(retryAfterMs(headers({}), 0)).toBeUndefined();
    expect(retryAfterMs(undefined, 0)).toBeUndefined();
  });
});
