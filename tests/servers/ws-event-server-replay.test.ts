/**
 * Issue 24, finding 8: a subscriber that connects after the run started missed `run.started` and
 * the first episodes. The event server now keeps a bounded replay log: a late subscriber gets the
 * run's events so far, then the live ones, with no gap and no duplicate at the seam.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { startEventServer, type EventServerOptions } from '../../servers/event-server/event-server.ts';
import type { RunEvent } from '../../streams/events.ts';
import { encodeEvent } from '../../transport/wire/event-codec.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';
import { acted, episodeEvents, finished, runEvents, runFinished, runStarted } from '../transport/ws-event-fixtures.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(source: Subject<RunEvent>, extra: Partial<EventServerOptions> = {}) {
  const server = await startEventServer({ port: 0, events: source, ...extra });
  cleanup.push(() => server.close());
  return server;
}

async function peer(url: string) {
  const p = await RawPeer.open(url);
  cleanup.push(() => p.close());
  return p;
}

/** Every event frame up to `end`, then the close code. */
async function readToEnd(p: RawPeer): Promise<{ events: RunEvent[]; code: number }> {
  const events: RunEvent[] = [];
  for (;;) {
    const frame = await p.next();
    if (frame.op === 'end') break;
    expect(frame.op).toBe('event');
    events.push(frame.event);
  }
  return { events, code: await p.closed };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('event server replay for late subscribers (issue 24, finding 8)', () => {
  it('a subscriber that connects mid-run gets run.started first and every event once, in order, across the seam', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const events = runEvents(300);
    let emitted = 0;
    const emit = (n: number) => {
      for (const stop = Math.min(events.length, emitted + n); emitted < stop; emitted++) source.next(events[emitted] as RunEvent);
    };
    emit(400); // run.started and the first hundred episodes, before anyone is there
    const late = await peer(server.url);
    late.send({ op: 'subscribe' });
    // Keep the run going while the subscribe frame is in flight, so the seam falls between emissions.
    while (server.stats().subscribers === 0) {
      emit(3);
      await nextTurn();
    }
    const seamAt = emitted;
    emit(events.length);
    source.complete();
    const subscribed = await late.next();
    const { events: received, code } = await readToEnd(late);
    expect(seamAt).toBeGreaterThan(400);
    expect(seamAt).toBeLessThan(events.length);
    expect(received).toEqual(events);
    expect(code).toBe(1000);
    expect(subscribed).toEqual({ op: 'subscribed', replayed: expect.any(Number), missed: 0 });
    expect(subscribed.replayed).toBeGreaterThanOrEqual(400);
  });

  it('subscribers joining at different moments each get the whole run; a type filter applies to the replay too', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const events = runEvents(60);
    const runs: Promise<unknown>[] = [];
    const finishedOnly: Promise<unknown>[] = [];
    for (let i = 0; i < events.length; i++) {
      source.next(events[i] as RunEvent);
      if (i % 60 === 1) {
        runs.push(lastValueFrom(observeRun(server.url).pipe(toArray())));
        finishedOnly.push(lastValueFrom(observeRun(server.url, { types: ['run.started', 'episode.finished'] }).pipe(toArray())));
        await until(() => server.stats().subscribers === runs.length * 2);
      }
    }
    source.complete();
    for (const run of runs) expect(await run).toEqual(events);
    const wanted = events.filter((event) => event.type === 'run.started' || event.type === 'episode.finished');
    for (const run of finishedOnly) expect(await run).toEqual(wanted);
  });

  it('a subscriber of a run that already finished gets the whole run, end and 1000', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const events = runEvents(20);
    for (const event of events) source.next(event);
    source.complete();
    const late = await peer(server.url);
    expect(await late.call({ op: 'subscribe' })).toEqual({ op: 'subscribed', replayed: events.length, missed: 0 });
    expect(await readToEnd(late)).toEqual({ events, code: 1000 });
  });

  it('past its bound the replay drops high-rate events first, keeps run.started, and says what a subscriber missed', async () => {
    const source = new Subject<RunEvent>();
    const lossless = [runStarted(50), ...Array.from({ length: 50 }, (_, i) => finished(i))];
    const bytesOf = (event: RunEvent, seq: number) => Buffer.byteLength(encodeEvent(event, seq));
    // Positions: run.started 0, then acted(i) at 2i + 1 and finished(i) at 2i + 2.
    const losslessBytes = lossless.reduce((sum, event, i) => sum + bytesOf(event, 2 * i), 0);
    const server = await serve(source, { replayBytes: losslessBytes + bytesOf(acted(48), 97) + bytesOf(acted(49), 99) });
    source.next(lossless[0] as RunEvent);
    for (let i = 0; i < 50; i++) {
      source.next(acted(i));
      source.next(lossless[i + 1] as RunEvent);
    }
    expect(server.stats().replay).toMatchObject({ evictedLossy: 48, evictedLossless: 0 });
    const late = await peer(server.url);
    // The 48 evicted high-rate events are not counted as missed: subscribers may miss those live too.
    expect(await late.call({ op: 'subscribe' })).toEqual({ op: 'subscribed', replayed: 53, missed: 0 });
    const onlyFinished = await peer(server.url);
    expect(await onlyFinished.call({ op: 'subscribe', types: ['episode.finished'] })).toEqual({ op: 'subscribed', replayed: 50, missed: 0 });

    // More lossless events than the bound holds: the oldest go, run.started stays.
    for (let i = 50; i < 60; i++) source.next(finished(i));
    const later = await peer(server.url);
    const subscribed = await later.call({ op: 'subscribe' });
    expect(subscribed.missed).toBeGreaterThan(0);
    source.next(runFinished(60));
    source.complete();
    const { events } = await readToEnd(later);
    expect(events[0]).toEqual(lossless[0]);
    expect(events.at(-1)).toEqual(runFinished(60));
    expect(events.length).toBe(subscribed.replayed + 1);
    expect(events.filter((event) => event.type === 'agent.acted')).toEqual([]);
    const slots = events.filter((event) => event.type === 'episode.finished').map((event) => event.slot);
    expect(slots).toEqual(Array.from({ length: slots.length }, (_, i) => 60 - slots.length + i)); // the newest, in order
    expect(subscribed.missed).toBe(61 - subscribed.replayed); // run.started and 60 finished, less what is held
  });

  it('live high-rate events still reach a subscriber that has caught up', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    for (const event of episodeEvents(0)) source.next(event);
    const seen = lastValueFrom(observeRun(server.url).pipe(toArray()));
    await until(() => server.stats().subscribers === 1);
    for (const event of episodeEvents(1)) source.next(event);
    source.complete();
    expect(await seen).toEqual([...episodeEvents(0), ...episodeEvents(1)]);
  });

  it('a subscriber that comes back with after = its last seq gets exactly the events after it', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const events = runEvents(30);
    for (const event of events.slice(0, 50)) source.next(event);
    const first = await peer(server.url);
    await first.call({ op: 'subscribe' });
    const seen: any[] = [];
    for (let i = 0; i < 40; i++) seen.push(await first.next());
    expect(seen.map((frame) => frame.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    await first.close(); // the connection drops; the run goes on
    for (const event of events.slice(50, 80)) source.next(event);
    const back = await peer(server.url);
    expect(await back.call({ op: 'subscribe', after: 39 })).toEqual({ op: 'subscribed', replayed: 40, missed: 0 });
    for (const event of events.slice(80)) source.next(event);
    source.complete();
    const { events: rest } = await readToEnd(back);
    expect([...seen.map((frame) => frame.event), ...rest]).toEqual(events);
    // An `after` from another stream (a restarted run) replays this one from its start.
    const stranger = await peer(server.url);
    expect(await stranger.call({ op: 'subscribe', after: 10_000 })).toMatchObject({ replayed: events.length });
  });
});
