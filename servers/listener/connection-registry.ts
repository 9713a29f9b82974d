/**
 * Every TCP connection of a listener, in two budgets (issue 40, finding 1): connections still in
 * their handshake (or serving plain HTTP such as a health probe) are *pending*, with their own
 * small cap, a per-address cap and a short deadline (pending-sockets.ts); upgraded peers are
 * *admitted*, capped by `maxConnections`, which pending sockets can no longer fill. Node's own
 * `maxConnections` stays only as a backstop on file descriptors, above the sum of both.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { OpsLog } from './ops-log.ts';
import { PendingSockets, peerOf } from './pending-sockets.ts';

export { peerOf } from './pending-sockets.ts';

export interface ConnectionRegistryOptions {
  /** A connection not upgraded (or not done with its HTTP request) within this many ms is destroyed. */
  readonly handshakeTimeoutMs: number;
  /** Upgraded peers at once; an upgrade past it is refused (503). */
  readonly maxConnections: number;
  /** Connections not upgraded yet, in all; past it the oldest is closed. */
  readonly maxPending: number;
  /** Connections not upgraded yet from one address; past it that address's oldest is closed. */
  readonly maxPendingPerAddress: number;
  readonly log: OpsLog;
}

export class ConnectionRegistry {
  #open = 0;
  #admitted = 0;
  readonly pending: PendingSockets;

  constructor(private readonly options: ConnectionRegistryOptions) {
    this.pending = new PendingSockets({
      max: options.maxPending,
      maxPerAddress: options.maxPendingPerAddress,
      deadlineMs: options.handshakeTimeoutMs,
      log: options.log,
    });
  }

  /** TCP connections open now, upgraded or not. */
  get open(): number {
    return this.#open;
  }

  /** Upgraded peers open now. */
  get admitted(): number {
    return this.#admitted;
  }

  /** No room for one more upgraded peer. */
  get full(): boolean {
    return this.#admitted >= this.options.maxConnections;
  }

  /** What node's `maxConnections` is set to: both budgets, plus room for the pending budget's overshoot before it closes sockets. */
  get backstop(): number {
    return this.options.maxConnections + 4 * this.options.maxPending;
  }

  /** Follows `http`'s connections: counts them, puts each in the pending budget, logs the ones node drops. */
  attach(http: Server): void {
    http.maxConnections = this.backstop;
    http.on('connection', (socket: Socket) => this.accepted(socket));
    http.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
      this.options.log('limit.hit', { limit: 'max_sockets', peer: `${data?.remoteAddress}:${data?.remotePort}`, max: this.backstop });
    });
  }

  /** The socket upgraded: it leaves the pending budget and counts as admitted until it closes. */
  admit(socket: Duplex): void {
    if (!this.pending.has(socket)) return;
    this.pending.settle(socket);
    this.#admitted++;
    socket.once('close', () => this.#admitted--);
  }

  /** The upgrade was refused or abandoned: the socket no longer counts as pending. */
  settle(socket: Duplex): void {
    this.pending.settle(socket);
  }

  /** Stops the deadline sweep (shutdown). */
  clear(): void {
    this.pending.clear();
  }

  /** Logs an upgrade refused at the admitted cap. */
  refusedFull(socket: Duplex): void {
    this.options.log('limit.hit', { limit: 'max_connections', peer: peerOf(socket), max: this.options.maxConnections });
  }

  private accepted(socket: Socket): void {
    this.#open++;
    socket.once('close', () => this.#open--);
    this.pending.add(socket);
  }
}
