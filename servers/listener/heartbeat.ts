/**
 * Ping/pong keep-alive over a ws server's clients: every interval each peer is pinged, and a
 * peer that has not answered the previous ping is terminated (a half-open TCP connection would
 * otherwise hold its resources until the OS notices, which can take hours).
 */
import type { WebSocket, WebSocketServer } from 'ws';

export class Heartbeat {
  readonly #awaitingPong = new WeakSet<WebSocket>();
  #timer: NodeJS.Timeout | undefined;
  readonly #onPong: (this: WebSocket) => void;

  /** `intervalMs` 0 disables the heartbeat. */
  constructor(
    private readonly wss: WebSocketServer,
    private readonly intervalMs: number,
  ) {
    const awaitingPong = this.#awaitingPong;
    // One listener function for every peer, bound through `this` rather than a closure per peer.
    this.#onPong = function (this: WebSocket) {
      awaitingPong.delete(this);
    };
  }

  /** Counts a pong from this peer as its answer. */
  watch(ws: WebSocket): void {
    ws.on('pong', this.#onPong);
  }

  /** Starts pinging; called once listening, so a failed listen leaves no timer behind. */
  start(): void {
    if (this.intervalMs <= 0) return;
    this.#timer = setInterval(() => this.beat(), this.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  private beat(): void {
    for (const ws of this.wss.clients) {
      if (this.#awaitingPong.has(ws)) {
        ws.terminate();
        continue;
      }
      this.#awaitingPong.add(ws);
      ws.ping();
    }
  }
}
