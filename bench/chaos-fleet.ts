/**
 * A fleet of `actorgym serve` child processes for chaos runs: each server is a real process
 * (`node bin/actorgym.js serve ENV --port P`), killed with SIGKILL (a real process death: no
 * close frame, the TCP connections reset) and restarted on the same port, where a client pool
 * finds it again.
 */
import { startChildServer, type ChildServer } from './stats.ts';

export class ServerFleet {
  private readonly servers: (ChildServer | undefined)[];
  /** Per server, the death of its last process: a restart waits for it (the port must be free). */
  private readonly dying = new Map<number, Promise<void>>();
  private readonly starting = new Map<number, Promise<void>>();
  private restarting = 0;

  private constructor(
    private readonly env: string,
    first: readonly ChildServer[],
    /** `ws://127.0.0.1:PORT` of each server, fixed for the fleet's life. */
    readonly urls: readonly string[],
  ) {
    this.servers = [...first];
  }

  static async start(count: number, env = 'babyai'): Promise<ServerFleet> {
    const servers = await Promise.all(Array.from({ length: count }, () => startChildServer([env, '--port', '0'])));
    return new ServerFleet(env, servers, servers.map((server) => server.urls[0] as string));
  }

  get size(): number {
    return this.servers.length;
  }

  /** Servers not killed, or killed and restarted (listening again). */
  up(): number[] {
    return this.servers.flatMap((server, index) => (server !== undefined ? [index] : []));
  }

  /** Servers being restarted now. */
  get pending(): number {
    return this.restarting;
  }

  /** Sends `signal` to a server's process (SIGSTOP freezes it with its sockets open; SIGCONT thaws it). */
  signal(index: number, signal: NodeJS.Signals): void {
    this.servers[index]?.child.kill(signal);
  }

  /** SIGKILL, and wait for the process to be gone (its port is then free). */
  async kill(index: number): Promise<void> {
    const server = this.servers[index];
    if (server === undefined) return this.dying.get(index);
    this.servers[index] = undefined;
    const exited = new Promise<void>((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve() : server.child.once('exit', () => resolve())));
    this.dying.set(index, exited);
    server.child.kill('SIGKILL');
    await exited;
  }

  /** Starts a killed server again on its port, once its old process is gone; resolves once it listens. */
  restart(index: number): Promise<void> {
    if (this.servers[index] !== undefined) return Promise.resolve();
    const pending = this.starting.get(index);
    if (pending !== undefined) return pending;
    const port = new URL(this.urls[index] as string).port;
    const starting = (async () => {
      this.restarting += 1;
      try {
        await this.dying.get(index);
        this.servers[index] = await startChildServer([this.env, '--port', port]);
      } finally {
        this.restarting -= 1;
        this.starting.delete(index);
      }
    })();
    this.starting.set(index, starting);
    return starting;
  }

  async stop(): Promise<void> {
    // A stopped process would hold a SIGTERM pending for ever.
    for (const server of this.servers) server?.child.kill('SIGCONT');
    await Promise.all(this.servers.map((server) => server?.stop()));
    this.servers.fill(undefined);
  }
}
