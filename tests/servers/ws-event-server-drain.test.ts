/**
 * Issue 24, finding 8: the process closed the event server right after the run, and a subscriber
 * that read slowly lost "never dropped" events (its socket was destroyed 1 s later). `close()`
 * now drains: every subscriber receives its backlog, `end` and 1000 first, bounded by `drainMs`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import { WebSocket } from 'ws';
import { startEventServer, type EventServerOptions } from '../../servers/event-server/event-server.ts';
import type { RunEvent } from '../../streams/events.ts';
import { SERVER_CLOSE_GRACE_MS } from '../../transport/wire/limits.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';
import { acted, finished, runEvents } from '../transport/ws-event-fixtures.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(source: Subject<RunEvent>, extra: Partial<EventServerOptions> = {}) {
  const server = await startEventServer({ port: 0, events: source, ...extra });
  cleanup.push(() => server.close());
  return server;
}

/**
 * A subscriber that reads one frame per turn of the event loop, after not reading at all until
 * `startReading` resolves: its frames pile up in the server meanwhile.
 */
async function slowSubscriber(url: string, startReading: Promise<unknown>) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  cleanup.push(async () => void ws.terminate());
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ op: 'subscribe' }));
  await new Promise((resolve) => ws.once('message', resolve));
  ws.pause();
  const frames: any[] = [];
  const closed = new Promise<number>((resolve) => ws.once('close', (code: number) => resolve(code)));
  ws.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    ws.pause();
    setImmediate(() => ws.resume());
  });
  void startReading.then(() => ws.resume());
  return { frames, closed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('event server drain on close (issue 24, finding 8)', () => {
  it('a slow subscriber still receives every lossless event, end and 1000 when close() follows the run at once', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { drainMs: 120_000 });
    let closeStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (closeStarted = resolve));
    // It starts reading only after the listener's old 1 s grace: before the fix its socket was gone by then.
    const reader = await slowSubscriber(server.url, started.then(() => sleep(SERVER_CLOSE_GRACE_MS + 500)));
    await until(() => server.stats().subscribers === 1);
    const padding = 'x'.repeat(8 * 1024); // ~8 MiB in all: more than the kernel's socket buffers hold
    const sent: RunEvent[] = [];
    for (let i = 0; i < 1000; i++) sent.push(finished(i, padding));
    for (const event of sent) source.next(event);
    source.complete();
    const closing = server.close(); // what the CLI does right after the run
    closeStarted();
    await closing;
    expect(await reader.closed).toBe(1000);
    expect(reader.frames.filter((frame) => frame.op === 'event').map((frame) => frame.event)).toEqual(sent);
    expect(reader.frames.at(-1)).toEqual({ op: 'end' });
  });

  it('drains a mixed run to a subscriber that reads slowly from the start, lossy events dropped only past the limit', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { drainMs: 120_000, lossyBufferBytes: 32 * 1024 });
    const reader = await slowSubscriber(server.url, Promise.resolve());
    await until(() => server.stats().subscribers === 1);
    const events = runEvents(2000);
    for (const event of events) source.next(event);
    source.complete();
    await server.close();
    expect(await reader.closed).toBe(1000);
    const received = reader.frames.filter((frame) => frame.op === 'event').map((frame) => frame.event as RunEvent);
    const lossless = (event: RunEvent) => event.type !== 'agent.acted' && event.type !== 'env.stepped';
    expect(received.filter(lossless)).toEqual(events.filter(lossless));
    expect(received.length + server.stats().dropped).toBe(events.length);
  });

  it('is bounded: a subscriber that never reads is cut off after drainMs and close() resolves', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { drainMs: 200 });
    const stuck = await RawPeer.open(server.url);
    cleanup.push(() => stuck.close());
    await stuck.call({ op: 'subscribe' });
    stuck.ws.pause();
    const padding = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) source.next(finished(i, padding));
    source.complete();
    await server.close();
    expect(server.stats().connections).toBe(0);
    stuck.ws.resume(); // a paused socket would not even see its end
    expect([1001, 1006]).toContain(await stuck.closed); // cut off (1006 when the close frame is stuck behind its backlog)
  });

  it('closing before the run ends sends the backlog, then 1001 with no end', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source);
    const peer = await RawPeer.open(server.url);
    cleanup.push(() => peer.close());
    await peer.call({ op: 'subscribe' });
    source.next(acted(1));
    source.next(finished(1));
    await server.close();
    expect(await peer.next()).toEqual({ op: 'event', seq: 0, event: acted(1) });
    expect(await peer.next()).toEqual({ op: 'event', seq: 1, event: finished(1) });
    expect(await peer.closed).toBe(1001);
  });

  it('refuses new connections and answers /readyz 503 while draining; /healthz stays 200', async () => {
    const source = new Subject<RunEvent>();
    const server = await serve(source, { drainMs: 120_000 });
    const http = server.url.replace('ws://', 'http://');
    expect((await fetch(`${http}/readyz`)).status).toBe(200);
    const stuck = await RawPeer.open(server.url);
    cleanup.push(() => stuck.close());
    await stuck.call({ op: 'subscribe' });
    stuck.ws.pause();
    const padding = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) source.next(finished(i, padding));
    source.complete();
    const closing = server.close();
    expect((await fetch(`${http}/readyz`)).status).toBe(503);
    expect((await fetch(`${http}/healthz`)).status).toBe(200);
    const refused = new RawPeer(server.url);
    await expect(refused.opened).rejects.toThrow();
    stuck.ws.resume();
    await closing;
    expect(await stuck.closed).toBe(1000);
  });
});
