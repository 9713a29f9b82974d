/**
 * Issue 40, finding 2, on the event server (`--events-port`) and the learner server: a token
 * holder's connections flooding frames get the server-wide frame budget's share and no more,
 * while `/readyz` and an honest client (an observer, a worker) are answered; a worker that sends
 * and never reads is held within the learner's reply budget. Asserts counts and bounds, never
 * latencies: a token bucket of R frames/s with bursts of B runs at most B + R·t frames in t seconds.
 */
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { startLearnerServer } from '../../servers/learner-server/learner-server.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { getJson } from '../transport/http-probe.ts';
import { RawPeer, until } from '../transport/raw-peer.ts';
import { runEvents } from '../transport/ws-event-fixtures.ts';
import { group, helloWorker, RUN, weightsAt } from './learner-server/fixtures.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const BUDGET = { perSecond: 500, burst: 50, sliceMs: 5 };

interface Flood {
  /** Replies the flooders have received so far. */
  replies(): number;
  stop(): void;
}

/** `count` connections, each sending `frame` 100 times every 10 ms (10,000 frames/s each) and counting the replies. */
async function flood(url: string, count: number, frame: string): Promise<Flood> {
  const peers = await Promise.all(Array.from({ length: count }, () => RawPeer.open(url)));
  let replies = 0;
  for (const peer of peers) peer.ws.on('message', () => replies++);
  const timers = peers.map((peer) => setInterval(() => {
    if (peer.ws.readyState === WebSocket.OPEN) for (let i = 0; i < 100; i++) peer.ws.send(frame);
  }, 10));
  const stop = () => {
    timers.forEach(clearInterval);
    peers.forEach((peer) => peer.ws.terminate());
  };
  cleanup.push(stop);
  return { replies: () => replies, stop };
}

/** Five `/readyz` probes 150 ms apart: their statuses. */
async function probes(url: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    statuses.push((await getJson(url, '/readyz')).status);
  }
  return statuses;
}

describe('the event server under a frame flood (issue 40)', () => {
  it('runs at most its frame budget over 32 flooding connections; /readyz and an observer are answered', async () => {
    const source = new Subject<TrainingEvent>();
    const server = await startEventServer({ port: 0, events: source, heartbeatMs: 0, frameBudget: BUDGET });
    cleanup.push(() => server.close());
    const t0 = performance.now();
    const attack = await flood(server.url, 32, 'not json');
    expect(await probes(server.url)).toEqual([200, 200, 200, 200, 200]);
    const seen = lastValueFrom(observeRun(server.url).pipe(toArray()));
    await server.waitForSubscribers(1, { timeoutMs: 10_000 });
    const events = runEvents(3);
    for (const event of events) source.next(event);
    source.complete();
    expect(await seen).toEqual(events);
    const replies = attack.replies();
    const seconds = (performance.now() - t0) / 1000;
    attack.stop();
    // Every reply is one frame run (an error for a frame that is not JSON); the observer's subscribe ran too.
    expect(replies).toBeLessThanOrEqual(BUDGET.burst + BUDGET.perSecond * seconds);
    expect(replies).toBeGreaterThan(0);
    expect(server.stats().frames).toBeGreaterThan(replies);
  }, 20_000);
});

describe('the learner server under a frame flood (issue 40)', () => {
  it('runs at most its frame budget over 32 flooding connections; /readyz and a worker are answered', async () => {
    const server = await startLearnerServer({ port: 0, run: RUN, weights: weightsAt(1), heartbeatMs: 0, helloTimeoutMs: 60_000, frameBudget: BUDGET });
    cleanup.push(() => server.close());
    const t0 = performance.now();
    const attack = await flood(server.url, 32, 'not json');
    expect(await probes(server.url)).toEqual([200, 200, 200, 200, 200]);
    const { peer, welcome } = await helloWorker(server.url, 'honest');
    cleanup.push(() => peer.ws.terminate());
    const offered: number[] = [];
    const produced = server.producer.produce({ step: 1, horizon: 6, groups: [0, 1] }, (g) => offered.push(g.index), new AbortController().signal);
    const assign = await peer.next();
    for (const index of assign.groups as number[]) peer.send({ op: 'group', id: assign.id, group: group(1, index, welcome.worker) });
    peer.send({ op: 'done', id: assign.id });
    await produced;
    const replies = attack.replies();
    const seconds = (performance.now() - t0) / 1000;
    attack.stop();
    expect(offered.sort()).toEqual([0, 1]);
    // The honest worker's hello, groups and done ran within the same budget.
    expect(replies).toBeLessThanOrEqual(BUDGET.burst + BUDGET.perSecond * seconds);
    expect(replies).toBeGreaterThan(0);
    expect(server.stats().frames).toBeGreaterThan(replies);
  }, 20_000);

  it('holds workers that send and never read within the reply budget, without closing them; a worker still trains', async () => {
    // 1 MiB over 8 (then 9) workers: a share of 113-128 KiB each, above the 64 KiB a worker may always hold.
    const total = 1024 * 1024;
    const server = await startLearnerServer({ port: 0, run: RUN, weights: weightsAt(1), heartbeatMs: 0, helloTimeoutMs: 60_000, maxTotalReplyBytes: total, frameBudget: { perSecond: 200_000, burst: 20_000, sliceMs: 5 } });
    cleanup.push(() => server.close());
    // Each frame of an unknown op costs an error reply of ~200 bytes; without a hello they are never handed work.
    const frame = JSON.stringify({ op: 'x'.repeat(64) });
    const silent = await Promise.all(Array.from({ length: 8 }, async () => ({ peer: await RawPeer.open(server.url) })));
    const timers = silent.map(({ peer }) => {
      (peer.ws as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing from here on
      return setInterval(() => {
        if (peer.ws.readyState === WebSocket.OPEN && peer.ws.bufferedAmount < 1024 * 1024) for (let i = 0; i < 500; i++) peer.ws.send(frame);
      }, 5);
    });
    cleanup.push(() => {
      timers.forEach(clearInterval);
      silent.forEach(({ peer }) => peer.ws.terminate());
    });
    // The kernel's socket buffers fill first; then replies wait in the server, up to each worker's share.
    await until(() => server.stats().peakReplyBytes > total / 2, 15_000);
    expect((await getJson(server.url, '/readyz')).status).toBe(200);
    const { peer, welcome } = await helloWorker(server.url, 'honest');
    cleanup.push(() => peer.ws.terminate());
    const produced = server.producer.produce({ step: 1, horizon: 6, groups: [0] }, () => {}, new AbortController().signal);
    const assign = await peer.next();
    expect(assign.groups).toEqual([0]);
    peer.send({ op: 'group', id: assign.id, group: group(1, 0, welcome.worker) });
    peer.send({ op: 'done', id: assign.id });
    await produced;
    const stats = server.stats();
    // 8 workers held at their share (total / workers) plus one reply each, none closed.
    expect(stats.peakReplyBytes).toBeLessThanOrEqual(total + 8 * 1024);
    expect(stats.policyCloses).toBe(0);
  }, 20_000);
});
