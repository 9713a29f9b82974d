/**
 * The AgentGym HTTP server's request gate. Every request passes, in order: the Origin check
 * (403), a CORS preflight, the health probes (no token), the drain (503), the token (401); only
 * then does it reach a route. The probes come before the token on purpose: orchestrators call
 * them without one. A request that passes them admits its socket (connections.ts), or is
 * answered 503 when admitted sockets are at their cap.
 */
import type http from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import { EnvError } from '../../envs/contract.ts';
import { answerHealth, type HealthState } from '../listener/health.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { admit, corsHeaders, PREFLIGHT_HEADERS, type Caller } from './access.ts';
import type { ConnectionTracker } from './connections.ts';
import { BadRequest, sendJson } from './http-io.ts';
import { InstanceLimit, type InstanceTable } from './instances.ts';
import type { Route } from './protocol.ts';
import { errorMessage } from '../../envs/error-message.ts';

export interface AgentGymHttpGateOptions {
  readonly table: InstanceTable;
  readonly connections: ConnectionTracker;
  readonly route: Route;
  /** Tokens that admit a caller; none: no authentication. */
  readonly tokens: readonly string[];
  readonly allowOrigins: readonly string[];
  readonly maxInstances: number;
  readonly log: OpsLog;
}

export class AgentGymHttpGate {
  #draining = false;

  constructor(private readonly options: AgentGymHttpGateOptions) {}

  get draining(): boolean {
    return this.#draining;
  }

  /** From now on requests get 503 `SERVER_DRAINING` and `/readyz` 503. */
  startDraining(): void {
    this.#draining = true;
  }

  request(req: http.IncomingMessage, res: http.ServerResponse): void {
    const { log, tokens, allowOrigins } = this.options;
    const peer = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const cors = corsHeaders(req, allowOrigins);
    if (cors === 'forbidden') {
      log('request.refused', { peer, reason: 'origin', origin: req.headers.origin });
      return sendJson(res, 403, { error: `origin ${req.headers.origin ?? ''} is not allowed (serve --allow-origin)`, code: 'FORBIDDEN_ORIGIN' }, true);
    }
    if (req.method === 'OPTIONS' && req.headers.origin !== undefined) {
      res.writeHead(204, { ...cors, ...PREFLIGHT_HEADERS, 'content-length': 0 });
      res.end();
      return;
    }
    if (answerHealth(req, res, () => this.health())) return;
    if (this.#draining) {
      return sendJson(res, 503, { error: 'the server is draining before it stops: use another server', code: 'SERVER_DRAINING' }, true, { ...cors, 'retry-after': '1' });
    }
    const admission = admit(req, tokens);
    if (!admission.ok) {
      log('request.refused', { peer, reason: 'token', path: admission.path });
      const challenge = { ...cors, 'www-authenticate': 'Bearer realm="actorgym", Basic realm="actorgym"' };
      return sendJson(res, 401, { error: 'missing or wrong token: send Authorization: Bearer T (see docs/agentgym-http.md#tokens)', code: 'UNAUTHORIZED' }, true, challenge);
    }
    this.serve(req, res, admission.path, admission.caller, cors);
  }

  private health(): HealthState {
    const { table, connections, maxInstances } = this.options;
    return {
      ready: !this.#draining && !table.full,
      ...(this.#draining ? { reason: 'draining' } : table.full ? { reason: 'at capacity' } : {}),
      detail: { instances: table.size, maxInstances, connections: connections.connections },
    };
  }

  /** Runs the route and answers: its value as 200, a bad request as 4xx, an env error as AgentGym's 200 `{error, code}`. */
  private serve(req: http.IncomingMessage, res: http.ServerResponse, path: string, caller: Caller, cors: OutgoingHttpHeaders): void {
    if (!this.options.connections.begin(req.socket, res)) {
      const error = 'this server holds its limit of connections (serve --max-connections); retry later or use another server';
      return sendJson(res, 503, { error, code: 'TOO_MANY_CONNECTIONS' }, true, { ...cors, 'retry-after': '1' });
    }
    this.options.route(req, path, caller).then(
      (value) => sendJson(res, 200, value, this.#draining, cors),
      (err: unknown) => {
        if (err instanceof BadRequest) return sendJson(res, err.status, { error: err.message }, this.#draining || err.status === 413, cors);
        const code = err instanceof EnvError || err instanceof InstanceLimit ? err.code : 'ENV_INTERNAL';
        sendJson(res, 200, { error: errorMessage(err, { withCode: false }), code }, this.#draining, cors);
      },
    );
  }
}
