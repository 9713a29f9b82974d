import { afterEach, describe, expect, it } from 'vitest';
import { from, lastValueFrom, Subject, toArray, type Observable } from 'rxjs';
import { WebSocket } from 'ws';
import { startEventServer, type EventServerHandle } from '../../servers/event-server/event-server.ts';
import type { RunEvent } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { observeRun, ObserveRunError } from '../../transport/observe-run.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';
import { acted, finished, runEvents } from '../transport/ws-event-fixtures.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(source: Observable<TrainingEvent>, extra: object = {}) {
  const server = await startEventServer({ port: 0, events: source, ...extra });
  cleanup.push(() => server.close());
  return server;
}

async function subscribed(server: EventServerHandle, count = 1) {
  await until(() => server.stats().subscribers === count);
}

describe('event server and observeRun', () => {
  it('delivers every event in order, every episode.finished included, and completes on end', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const all = lastValueFrom(observeRun(server.url).pipe(toArray()));
    const onlyFinished = lastValueFrom(observeRun(server.url, { types: ['episode.finished'] }).pipe(toArray()));
    await subscribed(server, 2);
    const events = runEvents(200);
    for (const event of events) source.next(event);
    source.complete();
    expect(await all).toEqual(events);
    expect(await onlyFinished).toEqual(events.filter((event) => event.type === 'episode.finished'));
    await until(() => server.stats().connections === 0);
  });

  it('carries a training run\'s learner events too, and filters them by type', async () => {
    const stepped: TrainingEvent = { type: 'learner.stepped', t: 5, step: 1, policyVersion: 1, metrics: { step: 1, successRate: 0.5, loss: 0.1 } };
    const events: TrainingEvent[] = [...runEvents(2), stepped];
    const server = await serve(from(events));
    expect(await lastValueFrom(observeRun(server.url).pipe(toArray()))).toEqual(events);
    expect(await lastValueFrom(observeRun(server.url, { types: ['learner.stepped'] }).pipe(toArray()))).toEqual([stepped]);
  });

  it('sends end right away to a subscriber of a completed (or cold, synchronous) source', async () => {
    const events = runEvents(3);
    const server = await serve(from(events));
    expect(await lastValueFrom(observeRun(server.url).pipe(toArray()))).toEqual(events);
  });

  it('closes the socket when the observer unsubscribes; the server holds one subscription to the run until it closes', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const seen: TrainingEvent[] = [];
    const subscription = observeRun(server.url).subscribe((event) => seen.push(event));
    await subscribed(server);
    source.next(acted(1));
    await until(() => seen.length === 1);
    subscription.unsubscribe();
    await until(() => server.stats().connections === 0);
    expect(source.observed).toBe(true); // kept for the replay of later subscribers
    await server.close();
    expect(source.observed).toBe(false);
  });

  it('errors the observer when the connection closes without end', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const result = lastValueFrom(observeRun(server.url).pipe(toArray())).catch((error: unknown) => error);
    await subscribed(server);
    source.next(finished(1));
    await server.close();
    const error = await result;
    expect(error).toBeInstanceOf(ObserveRunError);
    expect(error).toMatchObject({ code: 'CLOSED', closeCode: 1001 });
  });

  it('closes with 1011 when the source errors', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const result = lastValueFrom(observeRun(server.url)).catch((error: unknown) => error);
    await subscribed(server);
    source.error(new Error('run crashed'));
    expect(await result).toMatchObject({ code: 'CLOSED', closeCode: 1011 });
  });

  it('answers a bad subscribe frame with a typed error and a second subscribe with BAD_FRAME', async () => {
    const server = await serve(new Subject<RunEvent>());
    const peer = await RawPeer.open(server.url);
    cleanup.push(() => peer.close());
    expect(await peer.call('nope')).toMatchObject({ op: 'error', id: null, error: { code: 'BAD_JSON' } });
    expect(await peer.call({ op: 'watch', id: 3 })).toMatchObject({ op: 'error', id: 3, error: { code: 'UNKNOWN_OP' } });
    expect(await peer.call({ op: 'subscribe', types: ['bogus.type'] })).toMatchObject({ error: { code: 'BAD_FRAME' } });
    expect(await peer.call({ op: 'subscribe', types: ['run.finished'] })).toEqual({ op: 'subscribed', replayed: 0, missed: 0 });
    expect(await peer.call({ op: 'subscribe', id: 4 })).toMatchObject({ id: 4, error: { code: 'BAD_FRAME' } });
  });

  it('drops high-rate events for a subscriber that stops reading, never episode.finished', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { lossyBufferBytes: 64 * 1024, maxBufferedBytes: 512 * 1024 * 1024 });
    const peer = await RawPeer.open(server.url);
    cleanup.push(() => peer.close());
    expect(await peer.call({ op: 'subscribe' })).toEqual({ op: 'subscribed', replayed: 0, missed: 0 });
    peer.ws.pause();
    // Fill the kernel buffers and the socket's queue with lossless events, then interleave lossy ones.
    const padding = 'x'.repeat(64 * 1024);
    const sent: RunEvent[] = [];
    for (let i = 0; i < 400; i++) sent.push(finished(i, padding));
    for (let i = 0; i < 100; i++) sent.push(acted(i), finished(1000 + i));
    for (const event of sent) source.next(event);
    source.complete();
    expect(server.stats().dropped).toBe(100);
    peer.ws.resume();
    const received: any[] = [];
    for (;;) {
      const frame = await peer.next();
      if (frame.op === 'end') break;
      received.push(frame.event);
    }
    expect(received).toEqual(sent.filter((event) => event.type === 'episode.finished'));
    expect(await peer.closed).toBe(1000);
  });

  it('closes a subscriber whose backlog passes maxBufferedBytes with 1008', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { maxBufferedBytes: 1024 * 1024 });
    const peer = await RawPeer.open(server.url);
    cleanup.push(() => peer.close());
    await peer.call({ op: 'subscribe' });
    peer.ws.pause();
    const padding = 'x'.repeat(64 * 1024);
    // More than kernel buffers can hold, so the socket's own queue passes 1 MiB.
    for (let i = 0; i < 400; i++) source.next(finished(i, padding));
    peer.ws.resume();
    expect(await peer.closed).toBe(1008);
  });

  it('lets the browser origins of allowOrigins subscribe and refuses others with 403 (rollout --allow-origin)', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { allowOrigins: ['https://lab.example'] });
    const open = (origin: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(server.url, { headers: { Origin: origin } });
        ws.on('error', () => {});
        ws.once('open', () => {
          ws.terminate();
          resolve(101);
        });
        ws.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          ws.terminate();
        });
      });
    expect(await open('https://lab.example')).toBe(101);
    expect(await open('https://other.example')).toBe(403);
  });

  it('waitForSubscribers resolves once that many have subscribed, and with CLOSED when the server closes first', async () => {
    const source = new Subject<RunEvent>();
    const server = await startEventServer({ port: 0, events: source });
    const counts: number[] = [];
    const two = server.waitForSubscribers(2, { timeoutMs: 60_000, onChange: (n) => counts.push(n) });
    const first = await RawPeer.open(server.url);
    cleanup.push(() => first.close());
    await first.call({ op: 'subscribe' });
    const second = await RawPeer.open(server.url);
    cleanup.push(() => second.close());
    await second.call({ op: 'subscribe' });
    expect(await two).toEqual({ ok: true, subscribers: 2 });
    expect(counts).toEqual([1, 2]);
    const three = server.waitForSubscribers(3);
    await server.close();
    expect(await three).toMatchObject({ ok: false, code: 'CLOSED' });
  });
});
