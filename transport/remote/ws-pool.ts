import { EnvError } from '../../envs/contract.ts';
import { RECONNECT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { ServerLink, type LinkChange, type Placement, type ServerStats } from './server-link.ts';
import { connectEnvServer, type EnvServerConnectOptions, type EnvServerConnection, type RemoteEnvInfo } from './ws-client.ts';
import { SERVER_WAIT_MS } from './pool-limits.ts';

export { SERVER_WAIT_MS };

/**
 * Options of an `EnvServerPool`: a connection's options, plus the reconnect backoff and how long a
 * placement waits for a live server.
 */
export interface EnvServerPoolOptions extends EnvServerConnectOptions {
  /** How long placing an instance waits for a live server when none is connected (ms). Default 5 000. */
  readonly serverWaitMs?: number;
  /** Reconnect delays; default 100 ms doubling up to 2 s, with jitter (backoff.ts). */
  readonly backoff?: Partial<BackoffOptions>;
  /** Jitter source; default Math.random. */
  readonly random?: () => number;
  readonly now?: () => number;
  /** Told of every server that connects, is lost, or cannot be reached (once per outage). */
  readonly onEvent?: (event: PoolEvent) => void;
  /**
   * Opens one server's connection; default `connectEnvServer` (WebSocket). The AgentGym HTTP
   * pool passes its own (agentgym-http-connection.ts), so both kinds share this pool's placement,
   * reconnects and failover.
   */
  readonly connect?: (url: string) => Promise<EnvServerConnection>;
}

/**
 * A change in a pool's servers (connected, draining, lost, unreachable), with how many are live
 * after it.
 */
export interface PoolEvent {
  readonly type: 'server.connected' | 'server.draining' | 'server.suspect' | 'server.recovered' | 'server.lost' | 'server.unreachable';
  readonly url: string;
  readonly detail: string;
  /** Servers live after this change, of `servers`. */
  readonly live: number;
  readonly servers: number;
}

interface Waiter {
  resolve(placement: Placement): void;
  reject(error: EnvError): void;
  readonly timer: NodeJS.Timeout;
}

interface ReachWaiter {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * A client-side pool of env servers (`--remote ws://a:8100,ws://b:8100`): one connection per
 * server, each instance placed on the least-loaded live server, lost connections reopened with
 * capped exponential backoff (server-link.ts), a restarted server used again. Instances of a
 * lost server fail with ENV_LOST; the episode is aborted and its retry is placed on a live one.
 * A server whose call missed its deadline is suspect until it answers a probe (server-link.ts):
 * retries and new instances go elsewhere meanwhile, and a frozen one is dropped after the probe.
 *
 * Placing an instance while no server is connected waits for one, for at most `serverWaitMs`
 * counted from the moment the last server went away: a short outage (a server restarting) costs
 * no episode, a long one fails placements at once, so a run against a dead fleet drains quickly
 * instead of waiting at every slot.
 */
export class EnvServerPool {
  private readonly links: ServerLink[];
  private readonly waiters = new Set<Waiter>();
  private readonly reachWaiters = new Set<ReachWaiter>();
  private outageSince: number | undefined;
  private rotation = 0;
  private closed = false;
  private reference: RemoteEnvInfo | undefined;
  private readonly serverWaitMs: number;
  private readonly now: () => number;

  private constructor(
    urls: readonly string[],
    private readonly envId: string,
    private readonly options: EnvServerPoolOptions,
  ) {
    this.serverWaitMs = options.serverWaitMs ?? SERVER_WAIT_MS;
    this.now = options.now ?? (() => performance.now());
    const hooks = {
      connect: options.connect ?? ((url: string) => connectEnvServer(url, options)),
      prepare: (connection: EnvServerConnection, url: string) => this.prepare(connection, url),
      backoff: { ...RECONNECT_BACKOFF, ...options.backoff },
      random: options.random ?? Math.random,
      changed: (link: ServerLink, change: LinkChange, attempt: number) => this.changed(link, change, attempt),
    };
    this.links = urls.map((url) => new ServerLink(url, hooks));
  }

  /**
   * Connects to every server at once and resolves when each has answered or failed; servers
   * that failed keep being retried in the background. Rejects when none could be reached (with
   * that server's error when there is one URL), or when any refused the token (a misconfiguration
   * is better loud than a smaller fleet).
   */
  static async open(urls: readonly string[], envId: string, options: EnvServerPoolOptions = {}): Promise<EnvServerPool> {
    if (urls.length === 0) throw new EnvError('PROTOCOL_ERROR', 'a pool needs at least one env server URL');
    if (new Set(urls).size !== urls.length) throw new EnvError('PROTOCOL_ERROR', `an env server is listed twice: ${urls.join(',')}`);
    const pool = new EnvServerPool(urls, envId, options);
    await Promise.all(pool.links.map((link) => link.start()));
    const refused = pool.links.find((link) => isUnauthorized(link.lastFailure));
    if (refused !== undefined || pool.liveCount() === 0) {
      await pool.close();
      const only = pool.links.length === 1 ? pool.links[0]?.lastFailure : undefined;
      if (refused !== undefined) throw refused.lastFailure;
      if (only instanceof EnvError) throw only;
      throw new EnvError('ENV_LOST', `cannot connect to any env server: ${pool.describeServers()}`);
    }
    return pool;
  }

  /** The env's spec and oracle flag, as the first server to connect described it. */
  get info(): RemoteEnvInfo {
    if (this.reference === undefined) throw new EnvError('ENV_LOST', 'no env server has been reached');
    return this.reference;
  }

  get servers(): number {
    return this.links.length;
  }

  /** True while at least one server is connected. */
  get reachable(): boolean {
    return this.liveCount() > 0;
  }

  stats(): ServerStats[] {
    return this.links.map((link) => link.stats());
  }

  /** A connection to some live server, for one-off calls (task lists). */
  anyConnection(): EnvServerConnection {
    const placement = this.pick();
    if (placement === undefined) throw this.noServer();
    const { connection } = placement;
    placement.release();
    return connection;
  }

  /** A claim on the least-loaded live server, waiting up to `serverWaitMs` of outage for one. */
  place(): Promise<Placement> {
    if (this.closed) return Promise.reject(new EnvError('ENV_LOST', 'the env server pool is closed'));
    const placement = this.pick();
    if (placement !== undefined) return Promise.resolve(placement);
    const waited = this.outageSince === undefined ? 0 : this.now() - this.outageSince;
    const remaining = this.serverWaitMs - waited;
    if (remaining <= 0) return Promise.reject(this.noServer());
    return new Promise<Placement>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          this.updateKeepAlive();
          reject(this.noServer());
        }, remaining),
      };
      this.waiters.add(waiter);
      this.updateKeepAlive();
    });
  }

  /**
   * Whether an instance placed by `placement` should move before its next episode: its server
   * is gone or draining, or it holds at least two more instances than the least-loaded live server (so a
   * server that comes back takes its share again as episodes start).
   */
  shouldMove(placement: Placement): boolean {
    if (!placement.alive || placement.link.state !== 'live') return true;
    let least = Infinity;
    for (const link of this.links) if (link.state === 'live') least = Math.min(least, link.load);
    return placement.link.load - least >= 2;
  }

  /**
   * A call through `placement` was answered SERVER_DRAINING: that server is shutting down, so
   * nothing new goes to it until it has reconnected (a restart).
   */
  draining(placement: Placement): void {
    placement.link.markDraining(placement.connection);
  }

  /** Resolves once a server is connected (at once if one is); rejects when the pool closes or `signal` aborts. */
  whenReachable(signal?: AbortSignal): Promise<void> {
    if (this.reachable) return Promise.resolve();
    if (this.closed) return Promise.reject(new EnvError('ENV_LOST', 'the env server pool is closed'));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.reachWaiters.delete(waiter);
        this.updateKeepAlive();
        reject(abortError(signal as AbortSignal));
      };
      const waiter: ReachWaiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.reachWaiters.add(waiter);
      this.updateKeepAlive();
    });
  }

  /** Each server's state and last error, for messages. */
  describeServers(): string {
    return this.links.map((link) => `${link.url} ${link.state}${link.stats().lastError ? ` (${link.stats().lastError})` : ''}`).join('; ');
  }

  /** Closes every connection (the servers close their instances) and stops reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    const closing = new EnvError('ENV_LOST', 'the env server pool was closed');
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(closing);
    }
    this.waiters.clear();
    for (const waiter of this.reachWaiters) waiter.reject(closing);
    this.reachWaiters.clear();
    await Promise.all(this.links.map((link) => link.close()));
  }

  private async prepare(connection: EnvServerConnection, url: string): Promise<void> {
    const info = await connection.describe(this.envId);
    if (this.reference === undefined) {
      this.reference = info;
      return;
    }
    if (JSON.stringify(info) !== JSON.stringify(this.reference)) {
      throw new EnvError('PROTOCOL_ERROR', `${url} serves a different "${this.envId}" (spec differs from the pool's first server)`);
    }
  }

  /** The least-loaded live server, ties taken in turn so equal servers fill evenly. */
  private pick(): Placement | undefined {
    const count = this.links.length;
    let best: ServerLink | undefined;
    let bestAt = 0;
    for (let i = 0; i < count; i++) {
      const at = (this.rotation + i) % count;
      const link = this.links[at] as ServerLink;
      if (link.state !== 'live') continue;
      if (best === undefined || link.load < best.load) {
        best = link;
        bestAt = at;
      }
    }
    if (best === undefined) return undefined;
    this.rotation = (bestAt + 1) % count;
    return best.claim();
  }

  private liveCount(): number {
    return this.links.filter((link) => link.state === 'live').length;
  }

  private changed(link: ServerLink, change: LinkChange, attempt: number): void {
    const live = this.liveCount();
    if (live === 0) this.outageSince ??= this.now();
    else this.outageSince = undefined;
    const detail = link.stats().lastError ?? '';
    const report = (type: PoolEvent['type']) => this.options.onEvent?.({ type, url: link.url, detail, live, servers: this.links.length });
    if (change === 'connected') report('server.connected');
    else if (change === 'draining') report('server.draining');
    else if (change === 'suspect') report('server.suspect');
    else if (change === 'recovered') report('server.recovered');
    else if (change === 'lost') report('server.lost');
    else if (attempt === 0) report('server.unreachable'); // once per outage, not at every retry
    if (live === 0) return;
    for (const waiter of this.waiters) {
      const placement = this.pick();
      if (placement === undefined) break;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(placement);
    }
    for (const waiter of this.reachWaiters) waiter.resolve();
    this.reachWaiters.clear();
    this.updateKeepAlive();
  }

  private updateKeepAlive(): void {
    const waiting = this.waiters.size + this.reachWaiters.size > 0;
    for (const link of this.links) link.setKeepAlive(waiting);
  }

  private noServer(): EnvError {
    return new EnvError('ENV_LOST', `no env server reachable within ${this.serverWaitMs} ms: ${this.describeServers()}`);
  }
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof EnvError && error.code === 'PROTOCOL_ERROR' && error.message.startsWith('UNAUTHORIZED');
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}
