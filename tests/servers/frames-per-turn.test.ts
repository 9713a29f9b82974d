/**
 * Issue 40, finding 2: a flood's frames parsed from one read ran in one event-loop turn, so
 * `/readyz` waited behind them. The listener now hands a connection's frames over one per turn
 * (`framesPerTurn: 'one'`, the default); `all` keeps ws's old synchronous delivery. What is
 * asserted is the mechanism (how many turns a burst from one write spans), not a timing.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenWebSocket, type WsListener } from '../../servers/listener/ws-listener.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A masked client text frame (RFC 6455 §5.2), short payload. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] as number)));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

/** Sends `count` frames in one write after the upgrade; resolves with the event-loop turn each arrived in. */
async function turnsOfBurst(framesPerTurn: 'one' | 'all' | undefined, count: number): Promise<number[]> {
  let turn = 0;
  const ticking = setInterval(() => {}, 1_000); // keeps the loop alive while the counter runs
  const counter = () => {
    turn++;
    if (!stopped) setImmediate(counter);
  };
  let stopped = false;
  setImmediate(counter);
  const turns: number[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const listener: WsListener = await listenWebSocket(
    { port: 0, host: '127.0.0.1', token: undefined, heartbeatMs: 0, maxPayload: 1 << 20, ...(framesPerTurn ? { framesPerTurn } : {}) },
    (ws) => {
      ws.on('message', () => {
        turns.push(turn);
        if (turns.length === count) done();
      });
    },
  );
  cleanup.push(() => listener.close());
  const socket = connect({ port: listener.port, host: '127.0.0.1' });
  cleanup.push(() => void socket.destroy());
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(Buffer.concat(Array.from({ length: count }, (_, i) => clientFrame(`{"id":${i}}`))));
  await all;
  stopped = true;
  clearInterval(ticking);
  return turns;
}

describe('frames per event-loop turn (issue 40, finding 2)', () => {
  it('by default hands a burst from one write over one frame per turn', async () => {
    const turns = await turnsOfBurst(undefined, 200);
    expect(new Set(turns).size).toBe(200);
  });

  it("with 'all', hands the whole burst over in one turn (ws's synchronous delivery)", async () => {
    const turns = await turnsOfBurst('all', 200);
    expect(new Set(turns).size).toBeLessThanOrEqual(2); // one read, maybe split in two by TCP
  });
});
