/**
 * The budget of TCP connections that have not authenticated yet (no upgrade, no request with a
 * valid token), kept apart from the budget of authenticated peers so that sockets which never
 * authenticate cannot lock anyone out (issue 40, finding 1: 530 idle sockets filled a 512 cap
 * that counted both, and 197 of 199 honest connects failed).
 *
 * The rule, for both the WebSocket listener and the AgentGym HTTP server:
 * - each pending socket has `deadlineMs` to authenticate, then it is destroyed (cheaply: no reply);
 * - at most `maxPerAddress` pending sockets per remote address (an IPv6 address counts by its
 *   /64, which one host usually holds whole); past that, sockets of that address are closed, so
 *   one address only ever competes with itself;
 * - at most `max` pending sockets in all; past that, sockets of any address are closed.
 * Which ones: the oldest that has sent nothing yet, else the oldest. And not at once: a new
 * connection is let in, and the caps are enforced `EVICT_DELAY_MS` later, by when an honest
 * client has sent its request (then it is upgraded, or at least no longer idle) while an idle
 * attacker's socket has not. So a new connection gets its chance, even from the address of an
 * attacker that reconnects as fast as it is closed. (Past four times a cap, sockets are closed
 * at once, to bound file descriptors.) IPv4 addresses are not grouped by /24: honest fleets
 * often share one (a cluster's pod network), and spreading over many addresses is what the
 * global cap answers.
 * Deadlines are kept by one sweep in arrival order, not a timer per socket.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { OpsLog } from './ops-log.ts';

export interface PendingSocketsOptions {
  /** Pending sockets in all; past it the oldest is closed. */
  readonly max: number;
  /** Pending sockets of one remote address (IPv6: one /64); past it that address's oldest is closed. */
  readonly maxPerAddress: number;
  /** A socket still pending this many ms after it connected is destroyed. */
  readonly deadlineMs: number;
  readonly log: OpsLog;
  /** Clock (ms) of the deadlines. Default `performance.now`. */
  readonly now?: () => number;
}

/** How long a new connection has to show it is not idle before the caps are enforced (ms). */
const EVICT_DELAY_MS = 50;
/** Past this many times a cap, sockets are closed at once (file descriptors are finite). */
const HARD_FACTOR = 4;

interface Pending {
  readonly socket: Socket;
  readonly address: string;
  readonly since: number;
}

/** The key a socket's remote address counts under: IPv4 (also IPv4-mapped) whole, IPv6 by its /64. */
export function addressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return '?';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1] as string;
  if (!remoteAddress.includes(':')) return remoteAddress;
  const [head = '', tail = ''] = remoteAddress.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = remoteAddress.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class PendingSockets {
  /** In arrival order: the first entry is the oldest. */
  readonly #all = new Map<Duplex, Pending>();
  readonly #byAddress = new Map<string, Set<Duplex>>();
  #sweep: NodeJS.Timeout | undefined;
  #enforce: NodeJS.Timeout | undefined;
  /** Sockets closed for this budget since start, by cause. */
  readonly closed = { deadline: 0, evictedPerAddress: 0, evictedGlobal: 0 };
  readonly #now: () => number;

  constructor(private readonly options: PendingSocketsOptions) {
    this.#now = options.now ?? (() => performance.now());
  }

  /** Pending sockets now. */
  get size(): number {
    return this.#all.size;
  }

  has(socket: Duplex): boolean {
    return this.#all.has(socket);
  }

  /** A new connection: counted as pending (closing older ones over the caps); it leaves on close. */
  add(socket: Socket): void {
    const address = addressKey(socket.remoteAddress);
    const mine = this.#byAddress.get(address) ?? new Set<Duplex>();
    this.#byAddress.set(address, mine);
    this.#all.set(socket, { socket, address, since: this.#now() });
    mine.add(socket);
    socket.once('close', () => this.settle(socket));
    this.startSweep();
    const { max, maxPerAddress } = this.options;
    if (mine.size > HARD_FACTOR * maxPerAddress || this.#all.size > HARD_FACTOR * max) this.enforce();
    else if ((mine.size > maxPerAddress || this.#all.size > max) && this.#enforce === undefined) {
      this.#enforce = setTimeout(() => this.enforce(), EVICT_DELAY_MS);
      this.#enforce.unref();
    }
  }

  /** The socket authenticated (or closed): it no longer counts, and no deadline applies. */
  settle(socket: Duplex): void {
    const entry = this.#all.get(socket);
    if (entry === undefined) return;
    this.#all.delete(socket);
    const mine = this.#byAddress.get(entry.address);
    mine?.delete(socket);
    if (mine?.size === 0) this.#byAddress.delete(entry.address);
  }

  /** Stops the sweep (shutdown); the sockets themselves are the server's to close. */
  clear(): void {
    clearInterval(this.#sweep);
    clearTimeout(this.#enforce);
    this.#sweep = undefined;
  }

  /** Closes sockets until every address and the total are within their caps: idle ones first, oldest first. */
  private enforce(): void {
    clearTimeout(this.#enforce);
    this.#enforce = undefined;
    for (const mine of this.#byAddress.values()) {
      while (mine.size > this.options.maxPerAddress) this.evict(this.victim(mine), 'per_address');
    }
    while (this.#all.size > this.options.max) this.evict(this.victim(this.#all.keys()), 'global');
  }

  /** The oldest socket that has sent nothing in `EVICT_DELAY_MS`, else the oldest that has sent nothing, else the oldest. */
  private victim(sockets: Iterable<Duplex>): Duplex | undefined {
    const settled = this.#now() - EVICT_DELAY_MS;
    let oldest: Duplex | undefined;
    let idle: Duplex | undefined;
    for (const socket of sockets) {
      oldest ??= socket;
      if ((socket as Socket).bytesRead !== 0) continue;
      if ((this.#all.get(socket)?.since ?? 0) <= settled) return socket;
      idle ??= socket;
    }
    return idle ?? oldest;
  }

  private startSweep(): void {
    if (this.#sweep !== undefined) return;
    // A quarter of the deadline: a socket goes between deadlineMs and 1.25 × deadlineMs after it came.
    this.#sweep = setInterval(() => this.expire(), Math.max(10, Math.min(1_000, this.options.deadlineMs / 4)));
    this.#sweep.unref();
  }

  private expire(): void {
    const cutoff = this.#now() - this.options.deadlineMs;
    for (const entry of this.#all.values()) {
      if (entry.since > cutoff) break; // arrival order: the rest are younger
      this.settle(entry.socket);
      this.closed.deadline++;
      this.options.log('limit.hit', { limit: 'handshake_timeout', peer: peerOf(entry.socket), ms: this.options.deadlineMs });
      entry.socket.destroy();
    }
  }

  private evict(socket: Duplex | undefined, why: 'per_address' | 'global'): void {
    if (socket === undefined) return;
    this.settle(socket);
    if (why === 'per_address') this.closed.evictedPerAddress++;
    else this.closed.evictedGlobal++;
    this.options.log('limit.hit', {
      limit: why === 'per_address' ? 'pending_per_address' : 'max_pending',
      peer: peerOf(socket),
      max: why === 'per_address' ? this.options.maxPerAddress : this.options.max,
    });
    socket.destroy();
  }
}

/** `address:port` of a socket's remote end, IPv6 in brackets, for log lines. */
export function peerOf(socket: Duplex): string {
  const { remoteAddress, remotePort } = socket as Partial<Socket>;
  const address = remoteAddress ?? '?';
  return `${address.includes(':') ? `[${address}]` : address}:${remotePort ?? '?'}`;
}
