/**
 * Issue 40, finding 2: one token holder could freeze a server. 64 connections under their own
 * rate limits left `/readyz` unanswered for 15 s; one token filled the instance cap with 4
 * connections. Now one frame budget for the server, shared round-robin in slices that yield to
 * I/O, and instance quotas per client. Timings are bench/server-flood.ts's (a separate process);
 * here the flood shares the test's event loop, so only "answered at all" is asserted.
 */
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { FrameBudget, type SizedFrame } from '../../servers/listener/frame-budget.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { counterDefinition, resolver } from '../transport/fake-env.ts';
import { getJson } from '../transport/http-probe.ts';
import { RawPeer } from '../transport/raw-peer.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the frame budget (issue 40, finding 2)', () => {
  it('runs at most the bucket, then one frame per lane per round: a lane with one frame waits one round, not the backlog', async () => {
    let now = 0;
    const budget = new FrameBudget({ perSecond: 1_000, burst: 10, sliceMs: 1_000, maxQueuedFrames: 50, maxQueuedBytes: 1e9, now: () => now });
    cleanup.push(() => budget.stop());
    const ran: string[] = [];
    const flood = budget.lane<SizedFrame & { name: string }>({ run: (f) => ran.push(f.name), blocked: () => false, pause: () => {}, resume: () => {} });
    const honest = budget.lane<SizedFrame & { name: string }>({ run: (f) => ran.push(f.name), blocked: () => false, pause: () => {}, resume: () => {} });
    for (let i = 0; i < 100; i++) flood.submit({ name: 'flood', length: 10 });
    honest.submit({ name: 'honest', length: 10 });
    await tick();
    expect(ran).toHaveLength(10); // the burst, and the clock stands still
    now += 5; // 5 more tokens
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toHaveLength(15);
    expect(ran.slice(10, 12)).toContain('honest'); // its turn came in the first round after it queued
    expect(flood.waiting).toBe(100 - 14);
  });

  it('pauses a lane past its queue and resumes it at half; a blocked lane runs nothing until unblocked', async () => {
    const budget = new FrameBudget({ perSecond: 1e9, burst: 1e9, sliceMs: 0, maxQueuedFrames: 8, maxQueuedBytes: 1e9 });
    cleanup.push(() => budget.stop());
    const ran: string[] = [];
    const state = { blocked: true, paused: 0 };
    const lane = budget.lane<SizedFrame & { name: string }>({
      run: (f) => ran.push(f.name), blocked: () => state.blocked, pause: () => state.paused++, resume: () => state.paused--,
    });
    for (let i = 0; i < 8; i++) lane.submit({ name: 'x', length: 1 });
    expect(state.paused).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(ran).toHaveLength(0);
    state.blocked = false;
    lane.unblocked();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toHaveLength(8);
    expect(state.paused).toBe(0);
  });
});

describe('a server under a flood of frames (issue 40, finding 2)', () => {
  it('answers /readyz and an honest client throughout a 16-connection flood within per-connection limits', async () => {
    const server = await startEnvServer({ port: 0, resolveEnv: resolver(counterDefinition()), frameBudget: { perSecond: 20_000, burst: 2_000, sliceMs: 5 } });
    cleanup.push(() => server.close());
    let flooding = true;
    const frame = JSON.stringify({ id: 1, op: 'spec', env: 'counter' });
    const flooders = await Promise.all(Array.from({ length: 16 }, () => RawPeer.open(server.url)));
    cleanup.push(() => flooders.forEach((peer) => peer.ws.terminate()));
    // 200 frames each every 10 ms: 20,000 frames/s a connection, under the 50,000 default limit.
    const timers = flooders.map((peer) => setInterval(() => {
      if (flooding && peer.ws.readyState === WebSocket.OPEN) for (let i = 0; i < 200; i++) peer.ws.send(frame);
    }, 10));
    cleanup.push(() => timers.forEach(clearInterval));
    const probes: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      probes.push((await getJson(server.url, '/readyz')).status);
    }
    const honest = await connectEnvServer(server.url);
    cleanup.push(() => honest.close());
    await honest.spec('counter');
    const env = honest.makeEnv('counter');
    await env.reset({ taskId: 'count-2' });
    await env.step('inc');
    const last = await env.step('inc');
    flooding = false;
    expect(probes).toEqual([200, 200, 200, 200, 200]);
    expect(last.terminated).toBe(true);
    expect(server.stats().frames).toBeGreaterThan(1_000);
    expect(server.stats().rateLimited).toBe(0); // the flood stayed within each connection's limit
    expect(server.stats().connections).toBe(17);
  }, 20_000);

  it('caps instances per token over all its connections; another token still creates', async () => {
    const server = await startEnvServer({ port: 0, resolveEnv: resolver(counterDefinition()), token: ['alpha', 'beta'], maxInstancesPerClient: 3 });
    cleanup.push(() => server.close());
    const [a1, a2, b] = [await RawPeer.open(server.url, { token: 'alpha' }), await RawPeer.open(server.url, { token: 'alpha' }), await RawPeer.open(server.url, { token: 'beta' })];
    cleanup.push(() => [a1, a2, b].forEach((peer) => peer.ws.terminate()));
    const create = (peer: RawPeer, id: number) => peer.call({ id, op: 'create', env: 'counter' });
    expect(await create(a1, 1)).toMatchObject({ op: 'result' });
    expect(await create(a2, 2)).toMatchObject({ op: 'result' });
    expect(await create(a1, 3)).toMatchObject({ op: 'result' });
    expect(await create(a2, 4)).toMatchObject({ error: { code: 'TOO_MANY_INSTANCES', message: expect.stringContaining('limit per client') } });
    expect(await create(b, 5)).toMatchObject({ op: 'result' });
    a1.ws.terminate(); // its two instances go with it, and the token has room again
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await create(a2, 6)).toMatchObject({ op: 'result' });
  });
});
