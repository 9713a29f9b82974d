/**
 * The env server: hosts env instances for many WebSocket connections (protocol in
 * docs/protocol.md). Every frame is validated and answered; a bad frame, an env exception or a
 * misbehaving peer costs that peer an error reply or its connection, never the server. Limits
 * hold per connection and server-wide (instances, outbound bytes, connections), and a drain
 * lets running episodes finish before the server closes.
 *
 * `startEnvServer` composes the shared listener (../listener/ws-listener.ts) with the server's
 * connections (env-connections.ts); `EnvServer` is the handle that drains and closes them.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import {
  ENV_SERVER_FRAME_BUDGET,
  ENV_SERVER_MAX_BUFFERED_BYTES,
  ENV_SERVER_MAX_INSTANCES,
  ENV_SERVER_MAX_INSTANCES_PER_CLIENT,
  ENV_SERVER_MAX_QUEUED_BYTES,
  ENV_SERVER_MAX_QUEUED_FRAMES,
  ENV_SERVER_PAUSE_BUFFERED_BYTES,
  ENV_SERVER_MAX_PAYLOAD,
  ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES,
  MAX_INSTANCES_PER_CONNECTION,
  RATE_LIMIT,
  SERVER_CALL_TIMEOUT_MS,
  SERVER_DRAIN_TIMEOUT_MS,
  SERVER_HEARTBEAT_MS,
} from '../../transport/wire/limits.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { OutboundBudget } from '../listener/outbound-budget.ts';
import { listenWebSocket, type WsListener, type WsListenOptions } from '../listener/ws-listener.ts';
import { EnvConnections, type EnvConnectionsOptions } from './env-connections.ts';
import type { RateLimit } from './token-bucket.ts';

export type { RateLimit } from './token-bucket.ts';

/** Options of `startEnvServer`; every limit has a documented default (transport/wire/limits.ts). */
export interface EnvServerOptions {
  /** TCP port; 0 picks a free one (read it from the handle). */
  readonly port: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /** The env family of an id; throws `EnvError('ENV_UNKNOWN')` for ids it does not serve. */
  readonly resolveEnv: (id: string) => EnvDefinition;
  /**
   * Bearer token every connection must present; none means no authentication. Several: any of
   * them admits, and each is its own client for `maxInstancesPerClient`.
   */
  readonly token?: string | readonly string[];
  /** Ping interval (ms); a peer that misses a pong is terminated. 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  /** Largest inbound frame (bytes); a bigger one closes that connection with 1009. Default 1 MiB. */
  readonly maxPayload?: number;
  /** Instances one connection may hold. Default 256. */
  readonly maxInstancesPerConnection?: number;
  /** Instances over all connections; `/readyz` answers 503 while at it. Default 4 096. */
  readonly maxInstances?: number;
  /** Instances one client (a token, or an address without a token) holds over all its connections. Default 2 048. */
  readonly maxInstancesPerClient?: number;
  /**
   * Frames per second over all connections, shared round-robin, with at most `sliceMs` of frame
   * work per event-loop turn; `false` disables. Default `ENV_SERVER_FRAME_BUDGET` (100 000/s).
   */
  readonly frameBudget?: { readonly perSecond: number; readonly burst: number; readonly sliceMs: number } | false;
  /** Reply bytes waiting for one peer past which its frames wait for it to read. Default 1 MiB. */
  readonly pauseBufferedBytes?: number;
  /** Deadline of one reset/step/oracle (ms); past it the reply is ENV_TIMEOUT. Default 60 000. */
  readonly callTimeoutMs?: number;
  /** Per-connection token bucket; `false` disables. Default `RATE_LIMIT` (transport/wire/limits.ts). */
  readonly rateLimit?: RateLimit | false;
  /** Outbound bytes queued for one peer before it is closed with 1008. Default 64 MiB. */
  readonly maxBufferedBytes?: number;
  /** Outbound bytes queued for all peers; past it a peer over its share is closed with 1008. Default 128 MiB. */
  readonly maxTotalBufferedBytes?: number;
  /**
   * The process's buffered-bytes budget, shared with another server (`actorgym serve` shares it
   * with the AgentGym HTTP port); it replaces the three limits above.
   */
  readonly outbound?: OutboundBudget;
  /** Browser origins allowed besides the server's own loopback pages (`*`: any); programs always pass. Default none. */
  readonly allowOrigins?: readonly string[];
  /** A TCP connection not upgraded within this many ms is destroyed. Default 5 000. */
  readonly handshakeTimeoutMs?: number;
  /** Upgraded connections at once; an upgrade past it is refused with 503. Default 512. */
  readonly maxConnections?: number;
  /** Connections not upgraded yet; past it the oldest is closed. Default 128. */
  readonly maxPendingConnections?: number;
  /** Connections not upgraded yet from one address (IPv6: one /64); past it its oldest is closed. Default 16. */
  readonly maxPendingPerAddress?: number;
  /** `one` (default): a connection's frames handed over one per event-loop turn; `all`: every frame of a read at once (WsListenOptions.framesPerTurn). */
  readonly framesPerTurn?: 'one' | 'all';
  /** One JSON line per connection event (`createOpsLog`); default none. */
  readonly log?: OpsLog;
  /** Called once the server listens. */
  readonly onListening?: (address: { readonly port: number; readonly url: string }) => void;
  /** Clock (ms) for rate limits and call deadlines. Default `performance.now`. */
  readonly now?: () => number;
}

/** Counters of a running env server (`EnvServerHandle.stats`). */
export interface EnvServerStats {
  /** WebSocket connections open now. */
  readonly connections: number;
  /** TCP connections open now, upgraded or not (what `maxConnections` caps). */
  readonly tcpConnections: number;
  /** TCP connections not upgraded yet (idle, mid-handshake, health probes). */
  readonly pendingConnections: number;
  /** Connections not upgraded in time, or closed as the oldest past a pending cap, since start. */
  readonly pendingClosed: number;
  /** Env instances open now, over all connections. */
  readonly instances: number;
  /** Frames received since start. */
  readonly frames: number;
  /** Error replies sent since start (any code). */
  readonly errors: number;
  readonly rateLimited: number;
  readonly timeouts: number;
  /** Connections closed with 1008 for a limit (outbound buffer, rate limit) since start. */
  readonly policyCloses: number;
  /** Outbound bytes queued for all peers now, and the most since start. */
  readonly bufferedBytes: number;
  readonly peakBufferedBytes: number;
  readonly draining: boolean;
}

/** A running env server (`startEnvServer`). */
export interface EnvServerHandle {
  /** The port it listens on (the one the OS picked for `port: 0`). */
  readonly port: number;
  /** `ws://host:port` to hand to `connectEnvServer`. */
  readonly url: string;
  /** Closes every connection (1001) and every instance, then stops listening. */
  close(): Promise<void>;
  /**
   * Graceful shutdown: new connections get 503 and `/readyz` 503, `create` and `reset` get
   * `SERVER_DRAINING`; running calls and episodes under way go on until they end or `timeoutMs`
   * passes (calls still running then are answered `SERVER_DRAINING`); then `close()`.
   */
  drain(timeoutMs?: number): Promise<void>;
  /** Connections, instances, frames, errors and buffered bytes now and since start. */
  stats(): EnvServerStats;
}

/**
 * Starts an env server: serves the envs `resolveEnv` knows to any number of WebSocket clients
 * (`connectEnvServer`, `--remote ws://host:port`), each instance owned by the connection that
 * created it. Resolves once listening; rejects if the port cannot be bound.
 *
 * @example
 * const server = await startEnvServer({ port: 8100, resolveEnv: getEnv });
 * process.once('SIGTERM', () => void server.drain());
 * // on another machine: const env = await remoteEnvDefinition('ws://host:8100', 'babyai');
 */
export async function startEnvServer(options: EnvServerOptions): Promise<EnvServerHandle> {
  const log = options.log ?? (() => {});
  const connections = new EnvConnections(connectionOptions(options, log));
  const listener = await listenWebSocket(listenOptions(options, log, connections), (ws, _request, socket, peer) =>
    connections.accept(ws, socket, peer),
  );
  connections.startSweep();
  options.onListening?.({ port: listener.port, url: listener.url });
  return new EnvServer(listener, connections, log);
}

function connectionOptions(options: EnvServerOptions, log: OpsLog): EnvConnectionsOptions {
  return {
    resolveEnv: options.resolveEnv,
    maxInstancesPerConnection: options.maxInstancesPerConnection ?? MAX_INSTANCES_PER_CONNECTION,
    maxInstances: options.maxInstances ?? ENV_SERVER_MAX_INSTANCES,
    maxInstancesPerClient: options.maxInstancesPerClient ?? ENV_SERVER_MAX_INSTANCES_PER_CLIENT,
    callTimeoutMs: options.callTimeoutMs ?? SERVER_CALL_TIMEOUT_MS,
    rateLimit: options.rateLimit ?? RATE_LIMIT,
    maxBufferedBytes: options.maxBufferedBytes ?? ENV_SERVER_MAX_BUFFERED_BYTES,
    maxTotalBufferedBytes: options.maxTotalBufferedBytes ?? ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES,
    pauseBufferedBytes: options.pauseBufferedBytes ?? ENV_SERVER_PAUSE_BUFFERED_BYTES,
    ...(options.outbound !== undefined ? { outbound: options.outbound } : {}),
    frameBudget: options.frameBudget ?? ENV_SERVER_FRAME_BUDGET,
    maxQueuedFrames: ENV_SERVER_MAX_QUEUED_FRAMES,
    maxQueuedBytes: ENV_SERVER_MAX_QUEUED_BYTES,
    log,
    now: options.now ?? (() => performance.now()),
  };
}

function listenOptions(options: EnvServerOptions, log: OpsLog, connections: EnvConnections): WsListenOptions {
  return {
    port: options.port,
    host: options.host ?? '127.0.0.1',
    token: options.token,
    heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS,
    maxPayload: options.maxPayload ?? ENV_SERVER_MAX_PAYLOAD,
    ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
    ...(options.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: options.handshakeTimeoutMs } : {}),
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    ...(options.maxPendingConnections !== undefined ? { maxPendingConnections: options.maxPendingConnections } : {}),
    ...(options.maxPendingPerAddress !== undefined ? { maxPendingPerAddress: options.maxPendingPerAddress } : {}),
    ...(options.framesPerTurn !== undefined ? { framesPerTurn: options.framesPerTurn } : {}),
    log,
    health: () => connections.health(),
  };
}

class EnvServer implements EnvServerHandle {
  #closing: Promise<void> | undefined;
  #drained: Promise<void> | undefined;

  constructor(
    private readonly listener: WsListener,
    private readonly connections: EnvConnections,
    private readonly log: OpsLog,
  ) {}

  get port(): number {
    return this.listener.port;
  }

  get url(): string {
    return this.listener.url;
  }

  close(): Promise<void> {
    this.#closing ??= this.shutdown();
    return this.#closing;
  }

  drain(timeoutMs = SERVER_DRAIN_TIMEOUT_MS): Promise<void> {
    this.#drained ??= this.drainThenClose(timeoutMs);
    return this.#drained;
  }

  stats(): EnvServerStats {
    const { connections, listener } = this;
    return {
      connections: connections.size,
      tcpConnections: listener.connections(),
      pendingConnections: listener.pending().open,
      pendingClosed: listener.pending().closedByDeadline + listener.pending().evicted,
      ...connections.counters,
      bufferedBytes: connections.outbound.bytes,
      peakBufferedBytes: connections.outbound.peak,
      draining: connections.draining,
    };
  }

  private async shutdown(): Promise<void> {
    this.connections.stopSweep();
    await this.listener.close();
    await this.connections.disposed();
  }

  private async drainThenClose(timeoutMs: number): Promise<void> {
    this.connections.startDraining();
    this.listener.drain();
    this.log('server.draining', { connections: this.connections.size, instances: this.connections.counters.instances, timeoutMs });
    await this.connections.untilIdle(timeoutMs);
    this.connections.abandonRunning();
    await this.close();
    this.log('server.drained', {});
  }
}
