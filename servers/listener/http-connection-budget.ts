/**
 * An HTTP server's sockets, in two budgets (issue 40, finding 1: 530 idle sockets filled a 512
 * cap and locked out honest clients). A socket is *pending* until it carries a request that the
 * server admits (it passed the token check, or reached a route on a server without a token):
 * pending sockets have the listener's budget (./pending-sockets.ts: a small cap, idle and oldest
 * closed first, a per-address cap, and a deadline to get admitted, which Node does not enforce
 * before a first byte). Admitted sockets are capped by `maxConnections`; past it `admit` says no,
 * and the server answers 503 `TOO_MANY_CONNECTIONS` and closes the socket. Health probes and
 * refused requests leave a socket pending. An admitted socket stays admitted until it closes
 * (a WebSocket upgraded from it included).
 *
 * Shared by the AgentGym HTTP port, the policy server, the rollout service and the dashboard.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  SERVER_HANDSHAKE_TIMEOUT_MS,
  SERVER_MAX_CONNECTIONS,
  SERVER_MAX_PENDING_CONNECTIONS,
  SERVER_MAX_PENDING_PER_ADDRESS,
} from '../../transport/wire/limits.ts';
import type { OpsLog } from './ops-log.ts';
import { PendingSockets, peerOf } from './pending-sockets.ts';

/** The budget's options as a server takes them (each defaults to the env server's). */
export interface HttpConnectionLimits {
  /** Admitted sockets at once; a request on a new socket past it gets 503 `TOO_MANY_CONNECTIONS`. Default 512. */
  readonly maxConnections?: number;
  /** Sockets not admitted yet, in all; past it the idle and oldest are closed. Default 128. */
  readonly maxPendingConnections?: number;
  /** Sockets not admitted yet from one address (IPv6: one /64); past it its oldest is closed. Default 16. */
  readonly maxPendingPerAddress?: number;
  /** A socket not admitted this long after it connected is destroyed (ms). Default 5 000. */
  readonly handshakeTimeoutMs?: number;
}

export interface HttpConnectionBudgetOptions {
  /** A socket must carry an admitted request this soon after it connects (ms). */
  readonly deadlineMs: number;
  readonly maxConnections: number;
  readonly maxPending: number;
  readonly maxPendingPerAddress: number;
  readonly log: OpsLog;
  /** Also a `connection.opened` and `connection.closed` line per socket (default false: only refusals and closes for the budget). */
  readonly logConnections?: boolean;
}

/** `limits` with the env server's defaults filled in, as `HttpConnectionBudget` takes them. */
export function httpBudgetOf(limits: HttpConnectionLimits, log: OpsLog): HttpConnectionBudgetOptions {
  return {
    deadlineMs: limits.handshakeTimeoutMs ?? SERVER_HANDSHAKE_TIMEOUT_MS,
    maxConnections: limits.maxConnections ?? SERVER_MAX_CONNECTIONS,
    maxPending: limits.maxPendingConnections ?? SERVER_MAX_PENDING_CONNECTIONS,
    maxPendingPerAddress: limits.maxPendingPerAddress ?? SERVER_MAX_PENDING_PER_ADDRESS,
    log,
  };
}

/** What a request refused for the cap is told, naming the command whose flag sets it (`serve`, `dashboard`, …). */
export function tooManyConnections(command: string): string {
  return `this server holds its limit of connections (${command} --max-connections); retry later or use another server`;
}

export class HttpConnectionBudget {
  /** Open sockets, with the admitted requests each carried (for the close line). */
  readonly #requests = new Map<Socket, number>();
  readonly #admitted = new Set<Duplex>();
  readonly pending: PendingSockets;

  constructor(
    private readonly server: Server,
    private readonly options: HttpConnectionBudgetOptions,
  ) {
    const { log } = options;
    this.pending = new PendingSockets({
      max: options.maxPending,
      maxPerAddress: options.maxPendingPerAddress,
      deadlineMs: options.deadlineMs,
      log: (event, fields) => log(event === 'limit.hit' && fields?.['limit'] === 'handshake_timeout' ? 'connection.timeout' : event, fields),
    });
    // Node's own cap is only a backstop on file descriptors now, above both budgets.
    server.maxConnections = options.maxConnections + 4 * options.maxPending;
    server.on('connection', (socket: Socket) => this.opened(socket));
    server.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
      log('connection.refused', { peer: `${data?.remoteAddress ?? '?'}:${data?.remotePort ?? '?'}`, reason: 'max-sockets' });
    });
  }

  /** Open sockets, pending and admitted. */
  get connections(): number {
    return this.#requests.size;
  }

  /** Sockets that carried an admitted request and are still open. */
  get admitted(): number {
    return this.#admitted.size;
  }

  /** Sockets closed for the pending budget since start (deadline, per-address cap, global cap). */
  get pendingClosed(): number {
    const { closed } = this.pending;
    return closed.deadline + closed.evictedGlobal + closed.evictedPerAddress;
  }

  /**
   * A request on `socket` passed the server's checks: the socket leaves the pending budget.
   * False when the socket is new to the admitted budget and that is full: the caller answers
   * 503 `TOO_MANY_CONNECTIONS` and closes the socket.
   */
  admit(socket: Duplex): boolean {
    if (!this.#admitted.has(socket)) {
      if (this.#admitted.size >= this.options.maxConnections) {
        this.options.log('connection.refused', { peer: peerOf(socket), reason: 'max-connections' });
        return false;
      }
      this.pending.settle(socket);
      this.#admitted.add(socket);
    }
    const tcp = socket as Socket;
    if (this.#requests.has(tcp)) this.#requests.set(tcp, (this.#requests.get(tcp) ?? 0) + 1);
    return true;
  }

  /** Stops the deadline sweep (shutdown); the sockets are the server's to close. */
  close(): void {
    this.pending.clear();
  }

  /** Destroys every socket now and stops the deadline sweep. */
  destroyAll(): void {
    this.close();
    for (const socket of this.#requests.keys()) socket.destroy();
    this.server.closeAllConnections();
  }

  private opened(socket: Socket): void {
    const { log, logConnections = false } = this.options;
    const peer = peerOf(socket);
    this.#requests.set(socket, 0);
    this.pending.add(socket);
    if (logConnections) log('connection.opened', { peer, connections: this.#requests.size });
    socket.once('close', () => {
      const requests = this.#requests.get(socket) ?? 0;
      this.#requests.delete(socket);
      this.#admitted.delete(socket);
      if (logConnections) log('connection.closed', { peer, requests, connections: this.#requests.size });
    });
  }
}
