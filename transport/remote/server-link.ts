/**
 * One env server of a pool (ws-pool.ts): its current connection, how many instances sit on it,
 * and the reconnect loop. A lost connection is never reused; the link opens a new one after a
 * backoff (backoff.ts) and keeps trying, with the delay capped, until the pool closes, so a
 * server that is restarted on the same address is used again.
 */
import { EnvError } from '../../envs/contract.ts';
import { errorMessage } from '../../envs/error-message.ts';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import type { EnvServerConnection } from './ws-client.ts';

/**
 * `draining`: connected, but the server said it is shutting down; nothing new is placed on it.
 * `suspect`: connected, but a call missed its deadline and the probe after it is not answered
 * yet; nothing new is placed on it until it answers (then `live`) or is dropped (then `down`).
 */
export type LinkState = 'connecting' | 'live' | 'suspect' | 'draining' | 'down' | 'closed';

/** What a pool reports of each of its servers (`stats()`, `rollout --json` → `servers`). */
export interface ServerStats {
  readonly url: string;
  readonly state: LinkState;
  /** Instances placed on the current connection and not closed yet. */
  readonly load: number;
  /** Instances placed on this server over the pool's life (every connection). */
  readonly placed: number;
  /** Connections opened: the first one and every reconnect. */
  readonly connects: number;
  /** Connections lost while the pool was open. */
  readonly losses: number;
  /** Why the last connection or attempt failed, while the server is not live. */
  readonly lastError?: string;
}

export type LinkChange = 'connected' | 'draining' | 'suspect' | 'recovered' | 'lost' | 'attempt-failed';

export interface LinkHooks {
  connect(url: string): Promise<EnvServerConnection>;
  /** Fetches what the pool needs on a fresh connection (the env's spec); throws to refuse it. */
  prepare(connection: EnvServerConnection, url: string): Promise<void>;
  readonly backoff: BackoffOptions;
  readonly random: () => number;
  changed(link: ServerLink, change: LinkChange, attempt: number): void;
}

/** An instance's claim on a server: counted in its load until released. */
export interface Placement {
  readonly link: ServerLink;
  readonly connection: EnvServerConnection;
  /** False once the connection the instance was placed on is gone. */
  readonly alive: boolean;
  release(): void;
}

export class ServerLink {
  private current: EnvServerConnection | undefined;
  private status: LinkState = 'connecting';
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private keepAlive = false;
  private instances = 0;
  private placedTotal = 0;
  private connectCount = 0;
  private lossCount = 0;
  private failure: unknown;

  constructor(
    readonly url: string,
    private readonly hooks: LinkHooks,
  ) {}

  get state(): LinkState {
    return this.status;
  }

  get load(): number {
    return this.instances;
  }

  /** The error of the last failed connection attempt (or loss), while the server is not live. */
  get lastFailure(): unknown {
    return this.failure;
  }

  stats(): ServerStats {
    const base = { url: this.url, state: this.status, load: this.instances, placed: this.placedTotal, connects: this.connectCount, losses: this.lossCount };
    return this.failure === undefined ? base : { ...base, lastError: errorMessage(this.failure) };
  }

  /** The first attempt; resolves once it has succeeded or failed (a failure schedules the next). */
  start(): Promise<void> {
    return this.tryConnect();
  }

  /**
   * While someone waits for a server, pending reconnect timers keep the process alive; otherwise
   * they do not, so an idle pool never holds a finished program open.
   */
  setKeepAlive(on: boolean): void {
    this.keepAlive = on;
    if (on) this.timer?.ref();
    else this.timer?.unref();
  }

  claim(): Placement {
    const connection = this.current;
    if (connection === undefined || this.status !== 'live') throw new EnvError('ENV_LOST', `${this.url} is not connected`);
    this.instances += 1;
    this.placedTotal += 1;
    let released = false;
    const link = this;
    return {
      link,
      connection,
      get alive() {
        return link.current === connection && !connection.closed;
      },
      release: () => {
        if (released) return;
        released = true;
        // The load of a lost connection was reset with it; only the current one's counts.
        if (link.current === connection) link.instances -= 1;
      },
    };
  }

  /** The server answered SERVER_DRAINING: place nothing more on this connection (a new one is welcome). */
  markDraining(connection: EnvServerConnection): void {
    if (this.current !== connection || this.status !== 'live') return;
    this.status = 'draining';
    this.hooks.changed(this, 'draining', 0);
  }

  async close(): Promise<void> {
    this.status = 'closed';
    clearTimeout(this.timer);
    this.timer = undefined;
    const connection = this.current;
    this.current = undefined;
    this.instances = 0;
    await connection?.close();
  }

  private async tryConnect(): Promise<void> {
    this.timer = undefined;
    if (this.status === 'closed') return;
    this.status = 'connecting';
    let connection: EnvServerConnection | undefined;
    try {
      connection = await this.hooks.connect(this.url);
      await this.hooks.prepare(connection, this.url);
    } catch (error) {
      void connection?.close();
      if (this.isClosed()) return;
      this.failure = error;
      this.status = 'down';
      this.hooks.changed(this, 'attempt-failed', this.attempt);
      this.schedule();
      return;
    }
    if (this.isClosed()) {
      void connection.close();
      return;
    }
    this.current = connection;
    this.status = 'live';
    this.attempt = 0;
    this.instances = 0;
    this.connectCount += 1;
    this.failure = undefined;
    connection.onLost((error) => this.lose(connection, error));
    connection.onSuspect?.((suspect, why) => this.suspect(connection, suspect, why));
    this.hooks.changed(this, 'connected', 0);
  }

  /** Read through a call: `close()` may have run while an attempt awaited. */
  private isClosed(): boolean {
    return this.status === 'closed';
  }

  /** A call on `connection` missed its deadline (`suspect`), or the probe after it was answered. */
  private suspect(connection: EnvServerConnection, suspect: boolean, why: string): void {
    if (this.current !== connection) return;
    if (suspect && this.status === 'live') {
      this.status = 'suspect';
      this.failure = new EnvError('ENV_TIMEOUT', why);
      this.hooks.changed(this, 'suspect', 0);
    } else if (!suspect && this.status === 'suspect') {
      this.status = 'live';
      this.failure = undefined;
      this.hooks.changed(this, 'recovered', 0);
    }
  }

  private lose(connection: EnvServerConnection, error: EnvError): void {
    if (this.current !== connection || this.status === 'closed') return;
    this.current = undefined;
    this.instances = 0;
    this.lossCount += 1;
    this.failure = error;
    this.status = 'down';
    this.hooks.changed(this, 'lost', 0);
    this.schedule();
  }

  private schedule(): void {
    const delay = backoffDelay(this.attempt, this.hooks.backoff, this.hooks.random);
    this.attempt += 1;
    this.timer = setTimeout(() => void this.tryConnect(), delay);
    if (!this.keepAlive) this.timer.unref();
  }
}
