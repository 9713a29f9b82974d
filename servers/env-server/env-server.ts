/**
 * The env server: hosts env instances for many WebSocket connections (protocol in
 * docs/protocol.md). Every frame is validated and answered; a bad frame, an env exception or a
 * misbehaving peer costs that peer an error reply or its connection, never the server. Limits
 * hold per connection and server-wide (instances, outbound bytes, connections), and a drain
 * lets running episodes finish before the server closes.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import {
  ENV_SERVER_MAX_BUFFERED_BYTES,
  ENV_SERVER_MAX_INSTANCES,
  ENV_SERVER_MAX_PAYLOAD,
  ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES,
  MAX_INSTANCES_PER_CONNECTION,
  RATE_LIMIT,
  SERVER_CALL_TIMEOUT_MS,
  SERVER_DRAIN_TIMEOUT_MS,
  SERVER_HEARTBEAT_MS,
} from '../../transport/wire/limits.ts';
import { WriteBatch } from '../../transport/wire/write-batch.ts';
import { listenWebSocket } from '../listener/ws-listener.ts';
import { EnvConnection, type ConnectionContext, type EnvServerCounters } from './connection.ts';
import { OutboundBudget } from './outbound-budget.ts';
import { TokenBucket, type RateLimit } from './token-bucket.ts';
import type { OpsLog } from '../listener/ops-log.ts';

export type { RateLimit } from './token-bucket.ts';

export interface EnvServerOptions {
  /** TCP port; 0 picks a free one (read it from the handle). */
  readonly port: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /** The env family of an id; throws `EnvError('ENV_UNKNOWN')` for ids it does not serve. */
  readonly resolveEnv: (id: string) => EnvDefinition;
  /** Bearer token every connection must present; none means no authentication. */
  readonly token?: string;
  /** Ping interval (ms); a peer that misses a pong is terminated. 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  /** Largest inbound frame (bytes); a bigger one closes that connection with 1009. Default 1 MiB. */
  readonly maxPayload?: number;
  /** Instances one connection may hold. Default 256. */
  readonly maxInstancesPerConnection?: number;
  /** Instances over all connections; `/readyz` answers 503 while at it. Default 4 096. */
  readonly maxInstances?: number;
  /** Deadline of one reset/step/oracle (ms); past it the reply is ENV_TIMEOUT. Default 60 000. */
  readonly callTimeoutMs?: number;
  /** Per-connection token bucket; `false` disables. Default `RATE_LIMIT` (transport/wire/limits.ts). */
  readonly rateLimit?: RateLimit | false;
  /** Outbound bytes queued for one peer before it is closed with 1008. Default 64 MiB. */
  readonly maxBufferedBytes?: number;
  /** Outbound bytes queued for all peers; past it a peer over its share is closed with 1008. Default 128 MiB. */
  readonly maxTotalBufferedBytes?: number;
  /** Browser origins allowed besides the server's own loopback pages (`*`: any); programs always pass. Default none. */
  readonly allowOrigins?: readonly string[];
  /** A TCP connection not upgraded within this many ms is destroyed. Default 10 000. */
  readonly handshakeTimeoutMs?: number;
  /** TCP connections at once. Default 512. */
  readonly maxConnections?: number;
  /** One JSON line per connection event (`createOpsLog`); default none. */
  readonly log?: OpsLog;
  /** Called once the server listens. */
  readonly onListening?: (address: { readonly port: number; readonly url: string }) => void;
  /** Clock (ms) for rate limits and call deadlines. Default `performance.now`. */
  readonly now?: () => number;
}

export interface EnvServerStats {
  /** WebSocket connections open now. */
  readonly connections: number;
  /** TCP connections open now, upgraded or not (what `maxConnections` caps). */
  readonly tcpConnections: number;
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

export interface EnvServerHandle {
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
  stats(): EnvServerStats;
}

export async function startEnvServer(options: EnvServerOptions): Promise<EnvServerHandle> {
  const now = options.now ?? (() => performance.now());
  const rateLimit = options.rateLimit ?? RATE_LIMIT;
  const callTimeoutMs = options.callTimeoutMs ?? SERVER_CALL_TIMEOUT_MS;
  const maxServerInstances = options.maxInstances ?? ENV_SERVER_MAX_INSTANCES;
  const log = options.log ?? (() => {});
  const counters: EnvServerCounters = { frames: 0, errors: 0, rateLimited: 0, timeouts: 0, instances: 0, policyCloses: 0 };
  const outbound = new OutboundBudget(
    options.maxBufferedBytes ?? ENV_SERVER_MAX_BUFFERED_BYTES,
    options.maxTotalBufferedBytes ?? ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES,
  );
  const connections = new Set<EnvConnection>();
  const disposing = new Set<Promise<void>>();
  let instanceSeq = 0;
  let draining = false;
  /** Resolves a drain waiting for the server to fall idle. */
  let onSettled: (() => void) | undefined;
  const context: ConnectionContext = {
    resolveEnv: options.resolveEnv,
    maxInstances: options.maxInstancesPerConnection ?? MAX_INSTANCES_PER_CONNECTION,
    maxServerInstances,
    callTimeoutMs,
    outbound,
    nextInstanceId: () => `i${++instanceSeq}`,
    now,
    counters,
    log,
    draining: () => draining,
    settled: () => onSettled?.(),
  };

  const listener = await listenWebSocket(
    {
      port: options.port,
      host: options.host ?? '127.0.0.1',
      token: options.token,
      heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS,
      maxPayload: options.maxPayload ?? ENV_SERVER_MAX_PAYLOAD,
      ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
      ...(options.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: options.handshakeTimeoutMs } : {}),
      ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
      log,
      health: () => {
        const detail = { instances: counters.instances, maxInstances: maxServerInstances, frames: counters.frames };
        return counters.instances >= maxServerInstances
          ? { ready: false, reason: 'at the instance limit', detail }
          : { ready: true, detail };
      },
    },
    (ws, _request, socket, peer) => {
      const bucket = rateLimit === false ? undefined : new TokenBucket(rateLimit, now);
      const connection = new EnvConnection(ws, new WriteBatch(socket), context, bucket, peer.peer);
      connections.add(connection);
      ws.once('close', () => {
        connections.delete(connection);
        const disposed = connection.dispose();
        disposing.add(disposed);
        void disposed.finally(() => disposing.delete(disposed));
      });
      return { closeDetail: () => ({ instances: connection.instanceCount }) };
    },
  );

  // One sweep for all deadlines instead of a timer per call: a call times out between
  // callTimeoutMs and 1.25 × callTimeoutMs after it started.
  const sweep = setInterval(
    () => {
      const t = now();
      for (const connection of connections) connection.sweep(t);
    },
    Math.max(5, Math.min(1_000, callTimeoutMs / 4)),
  );
  sweep.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(sweep);
      await listener.close();
      await Promise.allSettled([...disposing]);
    })();
    return closing;
  };
  let drained: Promise<void> | undefined;
  const drain = (timeoutMs = SERVER_DRAIN_TIMEOUT_MS): Promise<void> => {
    drained ??= (async () => {
      draining = true;
      listener.drain();
      log('server.draining', { connections: connections.size, instances: counters.instances, timeoutMs });
      const busy = () => [...connections].some((connection) => connection.busy);
      if (busy()) {
        await new Promise<void>((resolve) => {
          const deadline = setTimeout(resolve, timeoutMs);
          onSettled = () => {
            if (busy()) return;
            clearTimeout(deadline);
            resolve();
          };
        });
        onSettled = undefined;
      }
      for (const connection of connections) connection.abandonRunning();
      await close();
      log('server.drained', {});
    })();
    return drained;
  };

  options.onListening?.({ port: listener.port, url: listener.url });
  return {
    port: listener.port,
    url: listener.url,
    close,
    drain,
    stats: () => ({
      connections: connections.size,
      tcpConnections: listener.connections(),
      ...counters,
      bufferedBytes: outbound.bytes,
      peakBufferedBytes: outbound.peak,
      draining,
    }),
  };
}
