/**
 * The rollout service (`actorgym rollout-server`, docs/trainers.md "The rollout service"): a
 * trainer in any language posts a batch of tasks and its model's endpoint, and reads back one
 * token record per episode, streamed as episodes finish.
 *
 *   POST   /v1/rollouts       → 200 application/x-ndjson: started, record…, done | error
 *   DELETE /v1/rollouts/{id}  → 204, the batch cancelled (404 unknown id)
 *   GET    /healthz, /readyz  → as every server (servers/listener/health.ts); readyz 503 when
 *                                draining or running its most batches
 *
 * Plain `node:http` with the policy server's gate (rollout-routes.ts). The episodes are run by
 * the `runner` the caller hands in (servers/ does not import the actors: batch-runner.ts).
 */
import http from 'node:http';
import { HttpConnectionBudget, httpBudgetOf, type HttpConnectionLimits } from '../listener/http-connection-budget.ts';
import { listen } from '../listener/listen.ts';
import { createOpsLog, type OpsLog } from '../listener/ops-log.ts';
import type { BatchRunner } from './batch-runner.ts';
import { EnvSource } from './env-source.ts';
import { BatchRegistry } from './batch-registry.ts';
import { RolloutRoutes } from './rollout-routes.ts';
import type { RunCurricula } from './run-curricula.ts';
import { DEFAULT_MAX_BATCHES, DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_EPISODES, DEFAULT_ROLLOUT_DRAIN_MS, DEFAULT_ROLLOUT_MAX_BODY_BYTES } from './limits.ts';

/**
 * The connection budget (`maxConnections`, `maxPendingConnections`, `maxPendingPerAddress`,
 * `handshakeTimeoutMs`) is the env server's (../listener/http-connection-budget.ts): a socket is
 * pending until a request on it passes the token check.
 */
export interface RolloutServerOptions extends HttpConnectionLimits {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Require `Authorization: Bearer <token>` on every route but the health probes. */
  readonly token?: string;
  readonly allowOrigins?: readonly string[];
  /** What runs a batch: `startTokenBatch` (actors/rollout-service/token-batch.ts) with its options. */
  readonly runner: BatchRunner;
  /** `ws://a:8100,ws://b:8100`: run envs on these env servers (a pool per env); absent = in-process. */
  readonly remote?: string;
  /** Bearer token of the env servers (default: `token`). */
  readonly remoteToken?: string;
  readonly envTimeoutMs?: number;
  /** Episodes running at once in one batch, at most. Default 64. */
  readonly maxConcurrency?: number;
  /** Batches at once. Default 8. */
  readonly maxBatches?: number;
  readonly maxEpisodes?: number;
  readonly maxBodyBytes?: number;
  /** On close, running batches get this long to finish before they are cancelled. Default 30 s. */
  readonly drainMs?: number;
  /** One JSON line per batch started and ended. */
  readonly log?: OpsLog;
  /** The adaptive curricula, one per trainer run (`AdaptiveRunCurricula`, actors/rollout-service/run-curricula.ts); absent: `adaptive:` schedules are refused. */
  readonly curricula?: RunCurricula;
}

export interface RolloutServer {
  readonly port: number;
  /** `http://host:port`. */
  readonly url: string;
  /** Batches admitted and not ended. */
  readonly batches: number;
  /** Refuses new batches (readyz 503), lets running ones finish within `drainMs`, cancels the rest, closes every connection and env pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the rollout service; resolves once it listens.
 *
 * @example
 * const server = await startRolloutServer({ port: 8300, runner: (spec, sink) => startTokenBatch(spec, sink) });
 */
export async function startRolloutServer(options: RolloutServerOptions): Promise<RolloutServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? createOpsLog({ server: 'rollout', enabled: false });
  const envs = new EnvSource({ remote: options.remote, token: options.remoteToken ?? options.token, envTimeoutMs: options.envTimeoutMs });
  const batches = new BatchRegistry(options.maxBatches ?? DEFAULT_MAX_BATCHES);
  const server = http.createServer();
  const budget = new HttpConnectionBudget(server, httpBudgetOf(options, log));
  const routes = new RolloutRoutes({ token: options.token, allowOrigins: options.allowOrigins, budget }, {
    runner: options.runner, envs, batches, curricula: options.curricula,
    limits: {
      maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
      maxEpisodes: options.maxEpisodes ?? DEFAULT_MAX_EPISODES,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_ROLLOUT_MAX_BODY_BYTES,
    },
    log,
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => routes.handle(req, res));
  // Deadlines on receiving a request only (headers and body); the response, a batch's stream, may run for minutes.
  server.requestTimeout = 30_000;
  server.headersTimeout = 30_000;
  const port = await listen(server, options.port, host).catch((error: unknown) => {
    budget.close();
    throw error;
  });
  const drainMs = options.drainMs ?? DEFAULT_ROLLOUT_DRAIN_MS;
  let closing: Promise<void> | undefined;
  const drain = async () => {
    routes.startDraining();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await routes.inFlight.settled(drainMs);
    batches.cancelAll('the service is shutting down');
    await Promise.all(batches.ends());
    await routes.inFlight.settled(1_000);
    budget.destroyAll();
    await stopped;
    await envs.close();
  };
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get batches() {
      return batches.size;
    },
    close: () => (closing ??= drain()),
  };
}
