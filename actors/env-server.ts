/**
 * The env server: hosts env instances for many WebSocket connections (protocol in
 * docs/protocol.md). Every frame is validated and answered; a bad frame, an env exception or a
 * misbehaving peer costs that peer an error reply or its connection, never the server.
 */
import type { EnvDefinition } from '../envs/contract.ts';
import {
  ENV_SERVER_MAX_BUFFERED_BYTES,
  ENV_SERVER_MAX_PAYLOAD,
  MAX_INSTANCES_PER_CONNECTION,
  RATE_LIMIT,
  SERVER_CALL_TIMEOUT_MS,
  SERVER_HEARTBEAT_MS,
} from '../streams/wire/limits.ts';
import { WriteBatch } from '../streams/wire/write-batch.ts';
import { listenWebSocket } from '../streams/wire/ws-server.ts';
import { EnvConnection, type ConnectionContext, type EnvServerCounters } from './env-server/connection.ts';
import { TokenBucket, type RateLimit } from './env-server/token-bucket.ts';

export type { RateLimit } from './env-server/token-bucket.ts';

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
  /** Deadline of one reset/step/oracle (ms); past it the reply is ENV_TIMEOUT. Default 60 000. */
  readonly callTimeoutMs?: number;
  /** Per-connection token bucket; `false` disables. Default 200 000 frames/s, burst 20 000. */
  readonly rateLimit?: RateLimit | false;
  /** Outbound bytes queued for one peer before it is closed with 1008. Default 64 MiB. */
  readonly maxBufferedBytes?: number;
  /** Called once the server listens. */
  readonly onListening?: (address: { readonly port: number; readonly url: string }) => void;
  /** Clock (ms) for rate limits and call deadlines. Default `performance.now`. */
  readonly now?: () => number;
}

export interface EnvServerStats {
  readonly connections: number;
  /** Env instances open now, over all connections. */
  readonly instances: number;
  /** Frames received since start. */
  readonly frames: number;
  /** Error replies sent since start (any code). */
  readonly errors: number;
  readonly rateLimited: number;
  readonly timeouts: number;
}

export interface EnvServerHandle {
  readonly port: number;
  /** `ws://host:port` to hand to `connectEnvServer`. */
  readonly url: string;
  /** Closes every connection (1001) and every instance, then stops listening. */
  close(): Promise<void>;
  stats(): EnvServerStats;
}

export async function startEnvServer(options: EnvServerOptions): Promise<EnvServerHandle> {
  const now = options.now ?? (() => performance.now());
  const rateLimit = options.rateLimit ?? RATE_LIMIT;
  const callTimeoutMs = options.callTimeoutMs ?? SERVER_CALL_TIMEOUT_MS;
  const counters: EnvServerCounters = { frames: 0, errors: 0, rateLimited: 0, timeouts: 0, instances: 0 };
  let instanceSeq = 0;
  const context: ConnectionContext = {
    resolveEnv: options.resolveEnv,
    maxInstances: options.maxInstancesPerConnection ?? MAX_INSTANCES_PER_CONNECTION,
    callTimeoutMs,
    maxBufferedBytes: options.maxBufferedBytes ?? ENV_SERVER_MAX_BUFFERED_BYTES,
    nextInstanceId: () => `i${++instanceSeq}`,
    now,
    counters,
  };
  const connections = new Set<EnvConnection>();
  const disposing = new Set<Promise<void>>();

  const listener = await listenWebSocket(
    {
      port: options.port,
      host: options.host ?? '127.0.0.1',
      token: options.token,
      heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS,
      maxPayload: options.maxPayload ?? ENV_SERVER_MAX_PAYLOAD,
    },
    (ws, _request, socket) => {
      const bucket = rateLimit === false ? undefined : new TokenBucket(rateLimit, now);
      const connection = new EnvConnection(ws, new WriteBatch(socket), context, bucket);
      connections.add(connection);
      ws.once('close', () => {
        connections.delete(connection);
        const disposed = connection.dispose();
        disposing.add(disposed);
        void disposed.finally(() => disposing.delete(disposed));
      });
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

  options.onListening?.({ port: listener.port, url: listener.url });
  return {
    port: listener.port,
    url: listener.url,
    async close() {
      clearInterval(sweep);
      await listener.close();
      await Promise.allSettled([...disposing]);
    },
    stats: () => ({ connections: connections.size, ...counters }),
  };
}
