/**
 * Every TCP connection of a listener, upgraded or not: how many are open (what `maxConnections`
 * caps and `/readyz` reports), and a deadline on each until it has upgraded or sent a plain
 * request. Idle sockets cost a file descriptor each and would otherwise stay forever. A budget
 * per remote address for connections still in their handshake would be kept here, beside the
 * deadlines.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { OpsLog } from './ops-log.ts';

export interface ConnectionRegistryOptions {
  /** A connection not upgraded (or not done with its HTTP request) within this many ms is destroyed. */
  readonly handshakeTimeoutMs: number;
  /** The server's connection cap, for the `limit.hit` line when node drops one over it. */
  readonly maxConnections: number;
  readonly log: OpsLog;
}

export class ConnectionRegistry {
  #open = 0;
  /** Handshake deadlines of connections that have not upgraded yet. */
  readonly #deadlines = new Map<Duplex, NodeJS.Timeout>();

  constructor(private readonly options: ConnectionRegistryOptions) {}

  /** TCP connections open now, upgraded or not. */
  get open(): number {
    return this.#open;
  }

  /** Follows `http`'s connections: counts them, starts each one's deadline, logs the ones dropped over the cap. */
  attach(http: Server): void {
    http.on('connection', (socket: Socket) => this.accepted(socket));
    // A plain request's socket is left to node's keep-alive and request timeouts from here on.
    http.on('request', (request: { readonly socket: Duplex }) => this.settle(request.socket));
    http.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
      this.options.log('limit.hit', { limit: 'max_connections', peer: `${data?.remoteAddress}:${data?.remotePort}`, max: this.options.maxConnections });
    });
  }

  /** The socket has upgraded or sent a request: its handshake deadline no longer applies. */
  settle(socket: Duplex): void {
    clearTimeout(this.#deadlines.get(socket));
    this.#deadlines.delete(socket);
  }

  /** Cancels every pending deadline (shutdown). */
  clear(): void {
    for (const deadline of this.#deadlines.values()) clearTimeout(deadline);
    this.#deadlines.clear();
  }

  private accepted(socket: Socket): void {
    this.#open++;
    const deadline = setTimeout(() => this.expired(socket), this.options.handshakeTimeoutMs);
    deadline.unref();
    this.#deadlines.set(socket, deadline);
    socket.once('close', () => {
      this.#open--;
      this.settle(socket);
    });
  }

  private expired(socket: Socket): void {
    this.#deadlines.delete(socket);
    this.options.log('limit.hit', { limit: 'handshake_timeout', peer: peerOf(socket), ms: this.options.handshakeTimeoutMs });
    socket.destroy();
  }
}

/** `address:port` of a socket's remote end, IPv6 in brackets, for log lines. */
export function peerOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '?';
  return `${address.includes(':') ? `[${address}]` : address}:${socket.remotePort ?? '?'}`;
}
