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
 * - one call at a time per instance id; stepping before reset or after `done` is an error.
 */
import http from 'node:http';
import { EnvError, type EnvDefinition } from '../../envs/contract.ts';
import { answerHealth, type HealthState } from '../listener/health.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { admit, corsHeaders, PREFLIGHT_HEADERS } from './access.ts';
import { adapterFor } from './adapters.ts';
import { ConnectionTracker } from './connections.ts';
import { BadRequest, sendJson } from './http-io.ts';
import { InstanceLimit, InstanceTable } from './instances.ts';
import * as limits from './limits.ts';
import { agentGymRoutes } from './protocol.ts';
import { listen } from '../listener/listen.ts';
import { errorMessage } from '../../envs/error-message.ts';

export {
  DEFAULT_IDLE_TTL_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_INSTANCES,
  DEFAULT_MAX_INSTANCES_PER_CLIENT,
} from './limits.ts';

export interface AgentGymHttpServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1: listen publicly only on purpose, and then with a `token`. */
  readonly host?: string;
  readonly definition: EnvDefinition;
  /**
   * Required on every route but the probes (Bearer, Basic password, `/token/T` prefix or
   * `?token=`). Several: each admits, and owns the instances it creates. None: no auth.
   */
  readonly token?: string | readonly string[];
  /** Browser origins allowed besides this server's own loopback pages (`*` any). Default none. */
  readonly allowOrigins?: readonly string[];
  readonly maxBodyBytes?: number;
  readonly maxInstances?: number;
  /** Per token, or per remote address without a token. */
  readonly maxInstancesPerClient?: number;
  /** `Infinity` disables reaping. */
  readonly idleTtlMs?: number;
  /** Field-name flavor; default from `definition.spec.id`, else `generic`. */
  readonly adapter?: 'generic' | 'babyai' | 'textcraft' | 'sciworld' | 'search' | 'web';
  readonly keepAliveTimeoutMs?: number;
  /** A new socket's first request header, and every later one, must be complete this soon. */
  readonly headersTimeoutMs?: number;
  /** A request body must be complete this soon after the request starts. */
  readonly requestTimeoutMs?: number;
  readonly maxConnections?: number;
  /** One JSON line per connection and instance event (`createOpsLog`); default none. */
  readonly log?: OpsLog;
  /**
   * The original env server's episode rules where they differ from ours (BabyAI's done rule
   * and running score; `ServerAdapter.prepareEnv`). Default true.
   */
  readonly agentgymCompat?: boolean;
}

export interface AgentGymHttpStats {
  readonly instances: number;
  readonly connections: number;
  readonly requestsInFlight: number;
  readonly draining: boolean;
}

export interface AgentGymHttpServer {
  readonly port: number;
  readonly url: string;
  stats(): AgentGymHttpStats;
  /**
   * Graceful stop (SIGTERM): not ready, no new connections, new requests on open ones get 503
   * `SERVER_DRAINING`; requests already running finish within `timeoutMs`, then `close()`.
   */
  drain(timeoutMs?: number): Promise<void>;
  /** Stops listening, drops connections and closes every instance. Idempotent. */
  close(): Promise<void>;
}

export async function startAgentGymHttpServer(options: AgentGymHttpServerOptions): Promise<AgentGymHttpServer> {
  const { definition } = options;
  const host = options.host ?? '127.0.0.1';
  const log: OpsLog = options.log ?? (() => {});
  const tokens = options.token === undefined ? [] : typeof options.token === 'string' ? [options.token] : [...options.token];
  const allowOrigins = options.allowOrigins ?? [];
  const maxInstances = options.maxInstances ?? limits.DEFAULT_MAX_INSTANCES;
  const adapter = adapterFor(definition.spec.id, options.adapter);
  const table = new InstanceTable({
    make: () => {
      const env = definition.make();
      adapter.prepareEnv?.(env, options.agentgymCompat ?? true);
      return env;
    },
    maxInstances,
    maxPerClient: options.maxInstancesPerClient ?? limits.DEFAULT_MAX_INSTANCES_PER_CLIENT,
    idleTtlMs: options.idleTtlMs ?? limits.DEFAULT_IDLE_TTL_MS,
    ids: tokens.length > 0 ? 'random' : 'sequential',
    onEvent: ({ type, ...fields }) => log(type, { ...fields, instances: table.size }),
  });
  const route = agentGymRoutes(definition, adapter, table, options.maxBodyBytes ?? limits.DEFAULT_MAX_BODY_BYTES);
  let draining = false;

  const headersTimeout = options.headersTimeoutMs ?? limits.DEFAULT_HEADERS_TIMEOUT_MS;
  const server = http.createServer({
    headersTimeout,
    requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? limits.DEFAULT_REQUEST_TIMEOUT_MS),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? limits.DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    // How often Node checks the header and request deadlines above (its default is 30 s).
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, headersTimeout / 2)),
  });
  server.maxConnections = options.maxConnections ?? limits.DEFAULT_MAX_CONNECTIONS;
  const connections = new ConnectionTracker(server, headersTimeout, log);

  const health = (): HealthState => ({
    ready: !draining && !table.full,
    ...(draining ? { reason: 'draining' } : table.full ? { reason: 'at capacity' } : {}),
    detail: { instances: table.size, maxInstances, connections: connections.connections },
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const peer = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const cors = corsHeaders(req, allowOrigins);
    if (cors === 'forbidden') {
      log('request.refused', { peer, reason: 'origin', origin: req.headers.origin });
      return sendJson(res, 403, { error: `origin ${req.headers.origin ?? ''} is not allowed (serve --allow-origin)`, code: 'FORBIDDEN_ORIGIN' }, true);
    }
    if (req.method === 'OPTIONS' && req.headers.origin !== undefined) {
      res.writeHead(204, { ...cors, ...PREFLIGHT_HEADERS, 'content-length': 0 });
      return res.end();
    }
    if (answerHealth(req, res, health)) return;
    if (draining) {
      return sendJson(res, 503, { error: 'the server is draining before it stops: use another server', code: 'SERVER_DRAINING' }, true, { ...cors, 'retry-after': '1' });
    }
    const admission = admit(req, tokens);
    if (!admission.ok) {
      log('request.refused', { peer, reason: 'token', path: admission.path });
      const challenge = { ...cors, 'www-authenticate': 'Bearer realm="actorgym", Basic realm="actorgym"' };
      return sendJson(res, 401, { error: 'missing or wrong token: send Authorization: Bearer T (see docs/agentgym-http.md#tokens)', code: 'UNAUTHORIZED' }, true, challenge);
    }
    connections.begin(req.socket, res);
    route(req, admission.path, admission.caller).then(
      (value) => sendJson(res, 200, value, draining, cors),
      (err: unknown) => {
        if (err instanceof BadRequest) return sendJson(res, err.status, { error: err.message }, draining || err.status === 413, cors);
        const code = err instanceof EnvError || err instanceof InstanceLimit ? err.code : 'ENV_INTERNAL';
        sendJson(res, 200, { error: errorMessage(err, { withCode: false }), code }, draining, cors);
      },
    );
  });

  const port = await listen(server, options.port, host);
  log('server.listening', { host, port, auth: tokens.length > 0 ? 'token' : 'none' });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      draining = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      connections.destroyAll();
      await table.closeAll();
      await stopped;
      log('server.closed', {});
    })());

  let drained: Promise<void> | undefined;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stats: () => ({ instances: table.size, connections: connections.connections, requestsInFlight: connections.inFlight, draining }),
    drain: (timeoutMs = limits.DEFAULT_DRAIN_TIMEOUT_MS) =>
      (drained ??= (async () => {
        draining = true;
        log('server.draining', { requests: connections.inFlight, timeout_ms: timeoutMs });
        server.close();
        server.closeIdleConnections();
        const finished = await connections.settle(timeoutMs);
        log('server.drained', { finished });
        await close();
      })()),
    close,
  };
}
