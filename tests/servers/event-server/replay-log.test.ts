import { describe, expect, it } from 'vitest';
import { isLossy } from '../../../servers/event-server/delivery-classes.ts';
import { ReplayLog, type ReplayEntry } from '../../../servers/event-server/replay-log.ts';

let seq = 0;
const entry = (type: string, bytes = 10): ReplayEntry => ({ seq: seq++, type, text: `${type}#${seq}`, bytes, lossy: isLossy(type) });
const types = (entries: readonly ReplayEntry[]) => entries.map((e) => e.type);

describe('ReplayLog', () => {
  it('holds everything under its bound, in stream order', () => {
    const log = new ReplayLog(1000);
    const all = [entry('run.started'), entry('episode.started'), entry('agent.acted'), entry('env.stepped'), entry('episode.finished')];
    for (const e of all) log.append(e);
    expect(log.snapshot(undefined)).toEqual(all);
    expect(log.stats()).toEqual({ events: 5, bytes: 50, evictedLossy: 0, evictedLossless: 0 });
    expect(log.missed(undefined)).toBe(0);
  });

  it('evicts high-rate events first, oldest first, and keeps the order of what is left', () => {
    const log = new ReplayLog(50);
    const first = entry('run.started');
    const started = entry('episode.started');
    const acted = [entry('agent.acted'), entry('agent.acted'), entry('agent.acted')];
    const finished = entry('episode.finished');
    for (const e of [first, started, ...acted, finished]) log.append(e); // 60 bytes: one acted over
    expect(log.snapshot(undefined)).toEqual([first, started, acted[1], acted[2], finished]);
    expect(log.stats()).toMatchObject({ evictedLossy: 1, evictedLossless: 0 });
    expect(log.missed(undefined)).toBe(0); // high-rate events may be missed live too: not counted
  });

  it('evicts the oldest lossless events once no high-rate one is left, never the first event', () => {
    const log = new ReplayLog(30);
    const first = entry('run.started');
    const finished = [entry('episode.finished'), entry('episode.finished'), entry('episode.finished'), entry('episode.finished')];
    for (const e of [first, ...finished]) log.append(e);
    expect(log.snapshot(undefined)).toEqual([first, finished[2], finished[3]]);
    expect(log.missed(new Set(['episode.finished', 'run.started']))).toBe(2);
    expect(log.missed(new Set(['run.started']))).toBe(0);
    // A subscriber coming back after position P gets what is held past P and misses only what was evicted past P.
    const f = finished as ReplayEntry[];
    expect(log.snapshot(undefined, f[0]?.seq)).toEqual([finished[2], finished[3]]);
    expect(log.missed(undefined, f[0]?.seq)).toBe(1);
    expect(log.missed(undefined, f[1]?.seq)).toBe(0);
    expect(log.snapshot(undefined, f[2]?.seq)).toEqual([finished[3]]);
  });

  it('filters a snapshot by type', () => {
    const log = new ReplayLog(1000);
    for (const type of ['training.started', 'run.started', 'agent.acted', 'episode.finished', 'learner.stepped']) log.append(entry(type));
    expect(types(log.snapshot(new Set(['episode.finished', 'learner.stepped'])))).toEqual(['episode.finished', 'learner.stepped']);
    expect(types(log.snapshot(new Set(['training.started'])))).toEqual(['training.started']);
  });

  it('stays within its bound over a long run', () => {
    const log = new ReplayLog(10_000);
    for (let i = 0; i < 50_000; i++) log.append(entry(i % 3 === 0 ? 'episode.finished' : 'env.stepped', 7));
    expect(log.stats().bytes).toBeLessThanOrEqual(10_000);
    const held = log.snapshot(undefined);
    expect(held.every((e, i) => i === 0 || e.seq > (held[i - 1] as ReplayEntry).seq)).toBe(true);
    expect(log.stats().events + log.stats().evictedLossy + log.stats().evictedLossless).toBe(50_000);
  });
});
