/**
 * Issue 24, finding 8: the docs said an event's `t` is "milliseconds from the run's clock"; it is
 * milliseconds since the Unix epoch, read from the run's injected clock (actors/clock.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { systemClock, type RunClock } from '../../actors/clock.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { getEnv } from '../../envs/index.ts';
import type { RunEvent } from '../../streams/events.ts';

async function eventsOf(clock?: RunClock): Promise<RunEvent[]> {
  const system = createRolloutSystem({ env: getEnv('babyai'), agent: 'random', episodes: 3, concurrency: 3, seed: 1, ...(clock ? { clock } : {}) });
  const events: RunEvent[] = [];
  system.events.subscribe((event) => events.push(event));
  await system.run();
  return events;
}

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('event time `t` (issue 24, finding 8)', () => {
  it('is epoch milliseconds with the default clock', async () => {
    const before = Date.now();
    const events = await eventsOf();
    const after = Date.now();
    expect(events.length).toBeGreaterThan(3);
    for (const event of events) {
      expect(event.t).toBeGreaterThanOrEqual(before);
      expect(event.t).toBeLessThanOrEqual(after);
    }
  });

  it('is whatever the injected clock reads', async () => {
    let reads = 0;
    const clock: RunClock = { ...systemClock, now: () => 1_000 + reads++ };
    const events = await eventsOf(clock);
    expect(events[0]?.type).toBe('run.started');
    for (const event of events) expect(event.t).toBeGreaterThanOrEqual(1_000);
    for (const event of events) expect(event.t).toBeLessThan(1_000 + reads);
  });

  it('is documented as such wherever it is described', () => {
    const protocol = read('docs/protocol.md');
    const runEvents = protocol.slice(protocol.indexOf('## Run events'));
    expect(runEvents).toMatch(/`t`: when the run emitted it, in \*\*milliseconds since the Unix\s+epoch\*\*/);
    expect(read('streams/events.ts')).toMatch(/milliseconds since the Unix epoch/);
    expect(read('streams/training-events.ts')).toMatch(/milliseconds since the Unix epoch/);
    for (const file of ['docs/protocol.md', 'streams/events.ts', 'streams/training-events.ts', 'README.md']) {
      expect(read(file)).not.toMatch(/milliseconds (from|of) the run's clock/);
    }
  });
});
