/**
 * The HTTP server's sockets: how many are open, how many requests run, and the deadline Node
 * does not enforce. Node's `headersTimeout` starts at a request's first byte, so a socket that
 * connects and never sends one lives on (300 such sockets exhausted a server's descriptors in
 * issue 24, finding 5): each new socket gets `headersTimeoutMs` for its first complete header.
 * Idle keep-alive sockets are Node's `keepAliveTimeout`'s; the count cap is `maxConnections`.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { OpsLog } from '../listener/ops-log.ts';

interface SocketState {
  readonly peer: string;
  firstRequest: NodeJS.Timeout | undefined;
  requests: number;
}

export class ConnectionTracker {
  readonly #sockets = new Map<Socket, SocketState>();
  #inFlight = 0;
  #whenIdle: (() => void) | undefined;

  constructor(
    private readonly server: Server,
    headersTimeoutMs: number,
    log: OpsLog,
  ) {
    server.on('connection', (socket: Socket) => {
      const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
      const state: SocketState = { peer, firstRequest: undefined, requests: 0 };
      state.firstRequest = setTimeout(() => {
        log('connection.timeout', { peer, after_ms: headersTimeoutMs });
        socket.destroy();
      }, headersTimeoutMs);
      state.firstRequest.unref();
      this.#sockets.set(socket, state);
      log('connection.opened', { peer, connections: this.#sockets.size });
      socket.once('close', () => {
        clearTimeout(state.firstRequest);
        this.#sockets.delete(socket);
        log('connection.closed', { peer, requests: state.requests, connections: this.#sockets.size });
      });
    });
    // Past `server.maxConnections` Node destroys the socket as soon as it is accepted.
    server.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
      log('connection.refused', { peer: `${data?.remoteAddress ?? '?'}:${data?.remotePort ?? '?'}`, reason: 'max-connections' });
    });
  }

  get connections(): number {
    return this.#sockets.size;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Counts a request from its header until its reply is sent or its socket dies. */
  begin(socket: Socket, response: ServerResponse): void {
    const state = this.#sockets.get(socket);
    if (state) {
      clearTimeout(state.firstRequest);
      state.firstRequest = undefined;
      state.requests += 1;
    }
    this.#inFlight += 1;
    response.once('close', () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#whenIdle?.();
    });
  }

  /** Resolves once no request runs, or after `timeoutMs`; true when they all finished. */
  settle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#whenIdle = undefined;
        resolve(false);
      }, timeoutMs);
      this.#whenIdle = () => {
        clearTimeout(timer);
        this.#whenIdle = undefined;
        resolve(true);
      };
    });
  }

  /** Destroys every socket now (shutdown), clearing their timers. */
  destroyAll(): void {
    for (const [socket, state] of this.#sockets) {
      clearTimeout(state.firstRequest);
      socket.destroy();
    }
    this.server.closeAllConnections();
  }
}
