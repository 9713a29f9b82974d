/**
 * The HTTP server's sockets, in two budgets (issue 40, finding 1: 530 idle sockets filled the
 * 512 cap and 35 of 83 honest requests failed). A socket is *pending* until it carries a request
 * that reaches a route (admitted by its token, or any request without a token): pending sockets
 * have the listener's budget (servers/listener/pending-sockets.ts: a small cap, oldest closed
 * first, a per-address cap, and `headersTimeoutMs` to get there, which Node does not enforce
 * before a first byte). Admitted sockets are capped by `maxConnections`; past it a request is
 * answered 503 and its socket closed. Health probes and refused requests leave a socket pending.
 * Idle keep-alive sockets are Node's `keepAliveTimeout`'s.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { OpsLog } from '../listener/ops-log.ts';
import { PendingSockets, peerOf } from '../listener/pending-sockets.ts';

export interface ConnectionBudget {
  /** A socket must carry an admitted request this soon after it connects (ms). */
  readonly headersTimeoutMs: number;
  /** Admitted sockets at once. */
  readonly maxConnections: number;
  /** Sockets not admitted yet, in all; past it the oldest is closed. */
  readonly maxPending: number;
  /** Sockets not admitted yet from one address (IPv6: one /64); past it its oldest is closed. */
  readonly maxPendingPerAddress: number;
}

export class ConnectionTracker {
  readonly #requests = new Map<Socket, number>();
  readonly #admitted = new Set<Socket>();
  readonly pending: PendingSockets;
  #inFlight = 0;
  #whenIdle: (() => void) | undefined;

  constructor(
    private readonly server: Server,
    private readonly budget: ConnectionBudget,
    private readonly log: OpsLog,
  ) {
    this.pending = new PendingSockets({
      max: budget.maxPending,
      maxPerAddress: budget.maxPendingPerAddress,
      deadlineMs: budget.headersTimeoutMs,
      log: (event, fields) => log(event === 'limit.hit' && fields?.['limit'] === 'handshake_timeout' ? 'connection.timeout' : event, fields),
    });
    // Node's own cap is only a backstop on file descriptors now, above both budgets.
    server.maxConnections = budget.maxConnections + 4 * budget.maxPending;
    server.on('connection', (socket: Socket) => {
      const peer = peerOf(socket);
      this.#requests.set(socket, 0);
      this.pending.add(socket);
      log('connection.opened', { peer, connections: this.#requests.size });
      socket.once('close', () => {
        const requests = this.#requests.get(socket) ?? 0;
        this.#requests.delete(socket);
        this.#admitted.delete(socket);
        log('connection.closed', { peer, requests, connections: this.#requests.size });
      });
    });
    server.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
      log('connection.refused', { peer: `${data?.remoteAddress ?? '?'}:${data?.remotePort ?? '?'}`, reason: 'max-sockets' });
    });
  }

  get connections(): number {
    return this.#requests.size;
  }

  /** Sockets that carried an admitted request and are still open. */
  get admitted(): number {
    return this.#admitted.size;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * An admitted request arrived on `socket`: it leaves the pending budget, and the request is
   * counted until its reply is sent. False when the socket is new to the admitted budget and it
   * is full: the caller refuses the request (503) and closes the socket.
   */
  begin(socket: Socket, response: ServerResponse): boolean {
    if (!this.#admitted.has(socket)) {
      if (this.#admitted.size >= this.budget.maxConnections) {
        this.log('connection.refused', { peer: peerOf(socket), reason: 'max-connections' });
        return false;
      }
      this.pending.settle(socket);
      this.#admitted.add(socket);
    }
    this.#requests.set(socket, (this.#requests.get(socket) ?? 0) + 1);
    this.#inFlight += 1;
    response.once('close', () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#whenIdle?.();
    });
    return true;
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

  /** Destroys every socket now (shutdown) and stops the deadline sweep. */
  destroyAll(): void {
    this.pending.clear();
    for (const socket of this.#requests.keys()) socket.destroy();
    this.server.closeAllConnections();
  }
}
