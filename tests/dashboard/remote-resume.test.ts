/**
 * Issue 24, finding 8: with the event server's replay, a dashboard that reconnects after a drop
 * resumes `after` the last event it applied: the episodes that finished while it was away are
 * counted once, none twice.
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { startDashboard } from '../../dashboard/index.ts';
import type { RunEvent } from '../../streams/events.ts';
import { until } from '../transport/raw-peer.ts';
import { finished, runStarted } from '../transport/ws-event-fixtures.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A TCP relay to `port` whose connections the test can cut, as a network drop would. */
async function relay(port: number) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('dashboard --connect after a drop (issue 24, finding 8)', () => {
  it('resumes after its last event: what finished meanwhile is counted once', async () => {
    const events = new Subject<RunEvent>();
    const server = await startEventServer({ port: 0, events });
    cleanup.push(() => server.close());
    const link = await relay(server.port);
    const dashboard = await startDashboard({ port: 0, warn: () => {} });
    cleanup.push(() => dashboard.close());
    const run = dashboard.connect(link.url, { reconnectMs: 50 });
    const successes = () => run.board.snapshot().outcomes.success;

    events.next(runStarted(10));
    for (let i = 0; i < 10; i += 2) events.next(finished(i)); // even slots succeed
    await until(() => successes() === 5);
    link.cut();
    await until(() => server.stats().subscribers === 0);
    for (let i = 10; i < 20; i += 2) events.next(finished(i));
    await until(() => server.stats().subscribers === 1);
    events.next(finished(20));
    await until(() => successes() >= 11);
    expect(successes()).toBe(11);
  });
});
