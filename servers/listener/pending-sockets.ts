/**
 * The budget of TCP connections that have not authenticated yet (no upgrade, no request with a
 * valid token), kept apart from the budget of authenticated peers so that sockets which never
 * authenticate cannot lock anyone out (issue 40, finding 1: 530 idle sockets filled a 512 cap
 * that counted both, and 197 of 199 honest connects failed).
 *
 * The rule, for both the WebSocket listener and the AgentGym HTTP server:
 * - each pending socket has `deadlineMs` to authenticate, then it is destroyed (cheaply: no reply);
 * - at most `maxPerAddress` pending sockets per remote address (an IPv6 address counts by its
 *   /64, which one host usually holds whole); a new one past that closes the *oldest* of that
 *   address, so one address only ever competes with itself;
 * - at most `max` pending sockets in all; a new one past that closes the oldest pending socket
 *   of any address. A new connection therefore always gets its chance: an honest client
 *   authenticates within a few milliseconds of connecting, while an idle attacker's socket ages
 *   and is the first to go. IPv4 addresses are not grouped by /24: honest fleets often share
 *   one (a cluster's pod network), and spreading over many addresses is what the global cap's
 *   eviction answers.
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

interface Pending {
  readonly socket: Duplex;
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
    if (mine.size >= this.options.maxPerAddress) this.evict(first(mine), 'per_address');
    if (this.#all.size >= this.options.max) this.evict(first(this.#all.keys()), 'global');
    this.#all.set(socket, { socket, address, since: this.#now() });
    mine.add(socket);
    socket.once('close', () => this.settle(socket));
    this.startSweep();
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
    this.#sweep = undefined;
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

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}

/** `address:port` of a socket's remote end, IPv6 in brackets, for log lines. */
export function peerOf(socket: Duplex): string {
  const { remoteAddress, remotePort } = socket as Partial<Socket>;
  const address = remoteAddress ?? '?';
  return `${address.includes(':') ? `[${address}]` : address}:${remotePort ?? '?'}`;
}
