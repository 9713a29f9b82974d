/**
 * The AgentGym HTTP server's sockets: the listener's two budgets (../listener/http-connection-budget.ts:
 * pending sockets capped and given `headersTimeoutMs` to carry an admitted request, admitted ones
 * capped by `maxConnections`), plus the requests in flight, which `drain` waits for. Idle
 * keep-alive sockets are Node's `keepAliveTimeout`'s.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HttpConnectionBudget } from '../listener/http-connection-budget.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { PendingSockets } from '../listener/pending-sockets.ts';

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
  readonly #budget: HttpConnectionBudget;
  #inFlight = 0;
  #whenIdle: (() => void) | undefined;

  constructor(server: Server, budget: ConnectionBudget, log: OpsLog) {
    const { headersTimeoutMs: deadlineMs, maxConnections, maxPending, maxPendingPerAddress } = budget;
    this.#budget = new HttpConnectionBudget(server, { deadlineMs, maxConnections, maxPending, maxPendingPerAddress, log, logConnections: true });
  }

  get pending(): PendingSockets {
    return this.#budget.pending;
  }

  get connections(): number {
    return this.#budget.connections;
  }

  /** Sockets that carried an admitted request and are still open. */
  get admitted(): number {
    return this.#budget.admitted;
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
    if (!this.#budget.admit(socket)) return false;
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
    this.#budget.destroyAll();
  }
}
