import { describe, expect, it } from 'vitest';
import { DeadlineTimers } from '../../actors/deadline-timers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DeadlineTimers', () => {
  it('fires a due timer once, within the resolution, and stops sweeping when idle', async () => {
    const timers = new DeadlineTimers(5);
    const fired: number[] = [];
    const start = performance.now();
    timers.setTimeout(() => fired.push(performance.now() - start), 20);
    await sleep(10);
    expect(fired).toEqual([]);
    await sleep(60);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(19);
    expect(timers.size).toBe(0);
  });

  it('never fires a cancelled timer', async () => {
    const timers = new DeadlineTimers(5);
    let fired = 0;
    const id = timers.setTimeout(() => (fired += 1), 10);
    timers.setTimeout(() => (fired += 10), 10);
    timers.clearTimeout(id);
    await sleep(50);
    expect(fired).toBe(10);
  });
});
