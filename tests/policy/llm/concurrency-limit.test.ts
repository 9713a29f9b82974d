import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit, type Release } from '../../../policy/llm/concurrency-limit.ts';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ConcurrencyLimit', () => {
  it('grants up to the limit at once and queues the rest', async () => {
    const limit = new ConcurrencyLimit(2);
    const granted: number[] = [];
    const releases: Release[] = [];
    for (let i = 0; i < 5; i++) void limit.acquire().then((release) => (granted.push(i), releases.push(release)));
    await tick();
    expect(granted).toEqual([0, 1]);
    expect(limit.inFlight).toBe(2);
    expect(limit.waiting).toBe(3);
  });

  it('serves waiters in arrival order (FIFO), handing the slot over without freeing it', async () => {
    const limit = new ConcurrencyLimit(1);
    const order: number[] = [];
    const first = await limit.acquire();
    const waiters = [1, 2, 3].map((i) => limit.acquire().then((release) => (order.push(i), release)));
    first();
    expect(limit.inFlight).toBe(1);
    for (const waiter of waiters) (await waiter)();
    expect(order).toEqual([1, 2, 3]);
    expect(limit.inFlight).toBe(0);
    expect(limit.waiting).toBe(0);
  });

  it('never exceeds the limit under many callers', async () => {
    const limit = new ConcurrencyLimit(3);
    let held = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const release = await limit.acquire();
        held += 1;
        most = Math.max(most, held);
        for (let t = 0; t < i % 4; t++) await tick();
        held -= 1;
        release();
      }),
    );
    expect(most).toBe(3);
    expect(limit.inFlight).toBe(0);
  });

  it('frees one slot however often a release is called', async () => {
    const limit = new ConcurrencyLimit(1);
    const release = await limit.acquire();
    let second = false;
    let third = false;
    void limit.acquire().then(() => (second = true));
    void limit.acquire().then(() => (third = true));
    release();
    release();
    await tick();
    expect([second, third]).toEqual([true, false]);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new ConcurrencyLimit(0)).toThrow(RangeError);
    expect(() => new ConcurrencyLimit(1.5)).toThrow(RangeError);
  });
});
