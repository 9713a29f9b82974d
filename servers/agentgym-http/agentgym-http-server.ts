/**
 * Serves an actorgym env over AgentGym's env-server HTTP protocol, so AgentGym-RL (Python,
 * verl on Ray) can train on actorgym's envs. Plain `node:http`, keep-alive on.
 *
 *   POST /create {}                      → {"id"}
 *   POST /reset  {"id", "data_idx"}      → {"observation", "reward", "score", "done", "deleted"}
 *   POST /step   {"id", "action"}        → {"observation", "reward", "score", "done"}
 *   GET  /observation?id=N               → "current observation"
 *   POST /close  {"id"}                  → true | false
 *   GET  /healthz, /readyz               → probes (no token needed)
 *
 * Shown is the generic (BabyAI) shape; TextCraft, SciWorld, SearchQA and WebArena use their AgentGym field
 * names (./agentgym-http/adapters.ts, chosen by `definition.spec.id` or `options.adapter`).
 * The routes themselves are ./agentgym-http/protocol.ts; this file is the server around them.
 *
 * data_idx → task: index into the definition's test tasks, followed by its train tasks
 * (`agentGymTaskOrder` in transport/remote/agentgym-http-env.ts): with 90 test tasks, data_idx 0..89
 * are `tasks('test')` and 90.. are `tasks('train')`. Out of range is a `TASK_UNKNOWN` error.
 * An optional integer `seed` in the reset body is passed to `Env.reset`.
 *
 * Departures from AgentGym, on purpose (docs/agentgym-http.md):
 * - with `token`, every route but the probes needs it (401 otherwise, nothing created), and an
 *   instance answers only to the token that created it (ids are random then);
 * - browser pages of a foreign origin are refused (403), preflights included;
 * - env errors are HTTP 200 `{"error", "code"}` as in AgentGym (plus an `EnvErrorCode`), but a
 *   body that is not JSON, misses a field or has a wrong type is a 400 `{"error"}` naming it;
 *   an oversized body is a 413; unknown routes 404, wrong methods 405;
 * - at most `maxInstances` instances, `maxInstancesPerClient` per client (a clear error beyond),
 *   and instances idle longer than `idleTtlMs` are closed: AgentGym never reaps, and an AgentGym-RL
 *   rollout that dies before its batch ends never sends its /close;
 * - BabyAI with `agentgymCompat` (default): the original's done rule and running score;
 * - sockets, headers and bodies have deadlines, connections a cap, and `drain` stops gracefully;
 * - replies a client does not read are bounded by the process's buffered-bytes budget
 *   (./response-budget.ts): its socket is served no more and read no more until it drains;
 * - one call at a time per instance id; stepping before reset or after `done` is an error.
 *
 * `startAgentGymHttpServer` composes an instance table (./instances.ts), the routes
 * (./protocol.ts), an HTTP server with deadlines (./connections.ts) and the request gate
 * (./request-gate.ts); `AgentGymHttp` is the handle that drains and closes them.
 */
import http from 'node:http';
import type { EnvDefinition } from '../../envs/contract.ts';
import { ENV_SERVER_MAX_BUFFERED_BYTES, ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES, ENV_SERVER_PAUSE_BUFFERED_BYTES } from '../../transport/wire/limits.ts';
import { listen } from '../listener/listen.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { OutboundBudget } from '../listener/outbound-budget.ts';
import { adapterFor, type ServerAdapter } from './adapters.ts';
import { ConnectionTracker } from './connections.ts';
import { InstanceTable } from './instances.ts';
import * as limits from './limits.ts';
import { agentGymRoutes } from './protocol.ts';
import { AgentGymHttpGate } from './request-gate.ts';
import { ResponseBudget } from './response-budget.ts';

export {
  DEFAULT_IDLE_TTL_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_INSTANCES,
  DEFAULT_MAX_INSTANCES_PER_CLIENT,
} from './limits.ts';

/** Options of `startAgentGymHttpServer`; limits default to ./limits.ts. */
export interface AgentGymHttpServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1: listen publicly only on purpose, and then with a `token`. */
  readonly host?: string;
  /** The env served; `data_idx` indexes its test tasks, then its train tasks. */
  readonly definition: EnvDefinition;
  /**
   * Required on every route but the probes (Bearer, Basic password, `/token/T` prefix or
   * `?token=`). Several: each admits, and owns the instances it creates. None: no auth.
   */
  readonly token?: string | readonly string[];
  /** Browser origins allowed besides this server's own loopback pages (`*` any). Default none. */
  readonly allowOrigins?: readonly string[];
  /** Largest request body (bytes); a bigger one is a 413. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Instances over all clients; `/readyz` answers 503 while at it. Default 4 096. */
  readonly maxInstances?: number;
  /** Per token, or per remote address without a token. Default 2 048. */
  readonly maxInstancesPerClient?: number;
  /** An instance idle this long (ms) is closed. `Infinity` disables reaping. Default 10 min. */
  readonly idleTtlMs?: number;
  /** Field-name flavor; default from `definition.spec.id`, else `generic`. */
  readonly adapter?: 'generic' | 'babyai' | 'textcraft' | 'sciworld' | 'search' | 'web';
  /** How long an idle keep-alive socket stays open (ms). */
  readonly keepAliveTimeoutMs?: number;
  /** A new socket's first request header, and every later one, must be complete this soon. */
  readonly headersTimeoutMs?: number;
  /** A request body must be complete this soon after the request starts. */
  readonly requestTimeoutMs?: number;
  /** Sockets that carried an admitted request, at once; past it a request on a new socket gets 503. */
  readonly maxConnections?: number;
  /** Sockets not admitted yet; past it the oldest is closed. Default 128. */
  readonly maxPendingConnections?: number;
  /** Sockets not admitted yet from one address (IPv6: one /64); past it its oldest is closed. Default 16. */
  readonly maxPendingPerAddress?: number;
  /**
   * Reply bytes not yet sent over all sockets; a socket over its share is served no more until it
   * drains, and past the total it is closed. Default 128 MiB. Ignored with `outbound`.
   */
  readonly maxTotalBufferedBytes?: number;
  /** The process's buffered-bytes budget, shared with other servers (`actorgym serve` passes the env server's). */
  readonly outbound?: OutboundBudget;
  /** One JSON line per connection and instance event (`createOpsLog`); default none. */
  readonly log?: OpsLog;
  /**
   * The original env server's episode rules where they differ from ours (BabyAI's done rule
   * and running score; `ServerAdapter.prepareEnv`). Default true.
   */
  readonly agentgymCompat?: boolean;
}

/** Counters of a running AgentGym HTTP server (`AgentGymHttpServer.stats`). */
export interface AgentGymHttpStats {
  readonly instances: number;
  readonly connections: number;
  /** Sockets not admitted yet (no request with a valid token so far), and those closed for that budget since start. */
  readonly pendingConnections: number;
  readonly pendingClosed: number;
  readonly requestsInFlight: number;
  /** Requests waiting for their socket to read its replies now, and since start. */
  readonly requestsWaiting: number;
  readonly requestsHeld: number;
  /** Sockets closed by the buffered-bytes budget since start. */
  readonly bufferClosed: number;
  /** Unsent reply bytes now and the most since start, over the whole buffered-bytes budget (the process's under `serve`). */
  readonly bufferedBytes: number;
  readonly peakBufferedBytes: number;
  readonly draining: boolean;
}

/** A running AgentGym HTTP server (`startAgentGymHttpServer`). */
export interface AgentGymHttpServer {
  /** The port it listens on (the one the OS picked for `port: 0`). */
  readonly port: number;
  /** `http://host:port`, the env server address an AgentGym client is given. */
  readonly url: string;
  /** Instances, connections and requests in flight now. */
  stats(): AgentGymHttpStats;
  /**
   * Graceful stop (SIGTERM): not ready, no new connections, new requests on open ones get 503
   * `SERVER_DRAINING`; requests already running finish within `timeoutMs`, then `close()`.
   */
  drain(timeoutMs?: number): Promise<void>;
  /** Stops listening, drops connections and closes every instance. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a server of AgentGym's env-server HTTP protocol for one actorgym env, so AgentGym-RL
 * (or any AgentGym client) can train on it: `POST /create`, `/reset`, `/step`, `/close`,
 * `GET /observation`, plus `/healthz` and `/readyz`. Resolves once listening.
 *
 * @example
 * const server = await startAgentGymHttpServer({ port: 36001, definition: getEnv('babyai') });
 * process.once('SIGTERM', () => void server.drain());
 */
export async function startAgentGymHttpServer(options: AgentGymHttpServerOptions): Promise<AgentGymHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const log: OpsLog = options.log ?? (() => {});
  const tokens = options.token === undefined ? [] : typeof options.token === 'string' ? [options.token] : [...options.token];
  const adapter = adapterFor(options.definition.spec.id, options.adapter);
  const table = createInstanceTable(options, adapter, tokens.length > 0, log);
  const route = agentGymRoutes(options.definition, adapter, table, options.maxBodyBytes ?? limits.DEFAULT_MAX_BODY_BYTES);
  const server = createHttpServer(options);
  const connections = new ConnectionTracker(server, connectionBudget(options), log);
  const maxInstances = options.maxInstances ?? limits.DEFAULT_MAX_INSTANCES;
  const gate = new AgentGymHttpGate({ table, connections, route, tokens, allowOrigins: options.allowOrigins ?? [], maxInstances, log });
  const responses = new ResponseBudget(outboundOf(options), responseLimits, log);
  responses.attach(server);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => responses.request(req, res, () => gate.request(req, res)));
  const port = await listen(server, options.port, host);
  log('server.listening', { host, port, auth: tokens.length > 0 ? 'token' : 'none' });
  return new AgentGymHttp(port, `http://${host.includes(':') ? `[${host}]` : host}:${port}`, { server, gate, table, connections, responses, log });
}

/** The env's instances; ids are random when tokens guard them, so one client cannot guess another's. */
function createInstanceTable(options: AgentGymHttpServerOptions, adapter: ServerAdapter, randomIds: boolean, log: OpsLog): InstanceTable {
  const { definition } = options;
  return new InstanceTable({
    make: () => {
      const env = definition.make();
      adapter.prepareEnv?.(env, options.agentgymCompat ?? true);
      return env;
    },
    maxInstances: options.maxInstances ?? limits.DEFAULT_MAX_INSTANCES,
    maxPerClient: options.maxInstancesPerClient ?? limits.DEFAULT_MAX_INSTANCES_PER_CLIENT,
    idleTtlMs: options.idleTtlMs ?? limits.DEFAULT_IDLE_TTL_MS,
    ids: randomIds ? 'random' : 'sequential',
    onEvent: ({ type, ...fields }, instances) => log(type, { ...fields, instances }),
  });
}

const responseLimits = {
  maxInFlight: limits.DEFAULT_MAX_REQUESTS_IN_FLIGHT_PER_SOCKET,
  maxHeld: limits.DEFAULT_MAX_HELD_REQUESTS_PER_SOCKET,
  heldTimeoutMs: limits.DEFAULT_HELD_TIMEOUT_MS,
};

/** The shared budget, or this server's own with the env server's defaults. */
function outboundOf(options: AgentGymHttpServerOptions): OutboundBudget {
  const total = options.maxTotalBufferedBytes ?? ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES;
  return options.outbound ?? new OutboundBudget(ENV_SERVER_MAX_BUFFERED_BYTES, total, ENV_SERVER_PAUSE_BUFFERED_BYTES);
}

function connectionBudget(options: AgentGymHttpServerOptions) {
  return {
    headersTimeoutMs: headersTimeoutOf(options),
    maxConnections: options.maxConnections ?? limits.DEFAULT_MAX_CONNECTIONS,
    maxPending: options.maxPendingConnections ?? limits.DEFAULT_MAX_PENDING_CONNECTIONS,
    maxPendingPerAddress: options.maxPendingPerAddress ?? limits.DEFAULT_MAX_PENDING_PER_ADDRESS,
  };
}

function headersTimeoutOf(options: AgentGymHttpServerOptions): number {
  return options.headersTimeoutMs ?? limits.DEFAULT_HEADERS_TIMEOUT_MS;
}

function createHttpServer(options: AgentGymHttpServerOptions): http.Server {
  const headersTimeout = headersTimeoutOf(options);
  const server = http.createServer({
    headersTimeout,
    requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? limits.DEFAULT_REQUEST_TIMEOUT_MS),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? limits.DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    // How often Node checks the header and request deadlines above (its default is 30 s).
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, headersTimeout / 2)),
  });
  return server;
}

interface AgentGymHttpParts {
  readonly server: http.Server;
  readonly gate: AgentGymHttpGate;
  readonly table: InstanceTable;
  readonly connections: ConnectionTracker;
  readonly responses: ResponseBudget;
  readonly log: OpsLog;
}

/** The handle: drains and closes the HTTP server, its connections and the instance table. */
class AgentGymHttp implements AgentGymHttpServer {
  #closing: Promise<void> | undefined;
  #drained: Promise<void> | undefined;

  constructor(
    readonly port: number,
    readonly url: string,
    private readonly parts: AgentGymHttpParts,
  ) {}

  stats(): AgentGymHttpStats {
    const { table, connections, gate, responses } = this.parts;
    const { closed } = connections.pending;
    return {
      instances: table.size,
      connections: connections.connections,
      pendingConnections: connections.pending.size,
      pendingClosed: closed.deadline + closed.evictedGlobal + closed.evictedPerAddress,
      requestsInFlight: connections.inFlight,
      requestsWaiting: responses.waiting,
      requestsHeld: responses.stats.held,
      bufferClosed: responses.stats.closed,
      bufferedBytes: responses.outbound.bytes,
      peakBufferedBytes: responses.outbound.peak,
      draining: gate.draining,
    };
  }

  drain(timeoutMs = limits.DEFAULT_DRAIN_TIMEOUT_MS): Promise<void> {
    this.#drained ??= this.drainThenClose(timeoutMs);
    return this.#drained;
  }

  close(): Promise<void> {
    this.#closing ??= this.shutdown();
    return this.#closing;
  }

  private async drainThenClose(timeoutMs: number): Promise<void> {
    const { server, connections, gate, log } = this.parts;
    gate.startDraining();
    log('server.draining', { requests: connections.inFlight, timeout_ms: timeoutMs });
    server.close();
    server.closeIdleConnections();
    const finished = await connections.settle(timeoutMs);
    log('server.drained', { finished });
    await this.close();
  }

  /** Stops listening, drops every connection and closes every instance. */
  private async shutdown(): Promise<void> {
    const { server, connections, table, gate, log } = this.parts;
    gate.startDraining();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    connections.destroyAll();
    await table.closeAll();
    await stopped;
    log('server.closed', {});
  }
}
