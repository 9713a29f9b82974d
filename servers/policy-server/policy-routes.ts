/**
 * The policy server's request gate and routes. In order: the health probes (no token, as
 * orchestrators call them), the browser Origin (403), the drain (503), the token (401), the
 * connection budget (a socket admitted here stops being pending; 503 past `maxConnections`), then
 * `GET /v1/models` or `POST /v1/chat/completions` (./chat-completion.ts). Errors are thrown as
 * `ApiError`s and answered in OpenAI's shape; every request is counted until it is answered.
 */
import type http from 'node:http';
import { requestToken, tokenMatches } from '../../transport/wire/auth.ts';
import { originAllowed } from '../../transport/wire/origin.ts';
import { answerHealth, type HealthState } from '../listener/health.ts';
import { tooManyConnections, type HttpConnectionBudget } from '../listener/http-connection-budget.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { ApiError, asApiError, sendError, sendJson } from './api-error.ts';
import { InFlightRequests } from './in-flight.ts';

/** The `POST /v1/chat/completions` handler: the checkpoint's (./chat-completion.ts) or a Hugging Face model's (./hf/). */
export interface CompletionRoute {
  answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
}

/** Figures `/healthz` and `/readyz` add to their body (the checkpoint's idle sessions, …). */
export type HealthDetail = () => Readonly<Record<string, number | string | boolean>>;

/** Who may call: `startPolicyServer`'s `token` and `allowOrigins`. */
export interface PolicyAccess {
  readonly token?: string;
  readonly allowOrigins?: readonly string[];
  /** The server's connection budget: a request that passes the token check admits its socket (or is refused 503). */
  readonly budget?: Pick<HttpConnectionBudget, 'admit'>;
  /** One JSON line per refused request (401, 403), redacted by `createOpsLog` (`serve-policy --log-json`). */
  readonly log?: OpsLog;
}

export class PolicyRoutes {
  readonly inFlight = new InFlightRequests();
  #draining = false;

  constructor(
    private readonly options: PolicyAccess,
    private readonly detail: HealthDetail,
    private readonly completion: CompletionRoute,
    private readonly model: object,
    /** `POST /v1/completions` (a Hugging Face model's, ./hf/hf-text-completion.ts); absent: 404. */
    private readonly textCompletion?: CompletionRoute,
  ) {}

  /** From now on requests get 503 and `/readyz` 503. */
  startDraining(): void {
    this.#draining = true;
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.inFlight.track(res);
    this.route(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const refusal = asApiError(error);
      if (refusal.status === 401 || refusal.status === 403) this.logRefused(req, refusal);
      sendError(res, refusal);
    });
  }

  private health(): HealthState {
    return this.#draining ? { ready: false, reason: 'draining' } : { ready: true, detail: this.detail() };
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (answerHealth(req, res, () => this.health())) return;
    this.admit(req);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = (q < 0 ? url : url.slice(0, q)).replace(/\/+$/, '');
    const method = req.method ?? '?';
    if (path === '/v1/chat/completions') {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', `use POST on ${path}, not ${method}`);
      return this.completion.answer(req, res);
    }
    if (path === '/v1/completions' && this.textCompletion !== undefined) {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', `use POST on ${path}, not ${method}`);
      return this.textCompletion.answer(req, res);
    }
    if (path === '/v1/models' || path.startsWith('/v1/models/')) {
      if (method !== 'GET') throw new ApiError(405, 'method_not_allowed', `use GET on ${path}, not ${method}`);
      return sendJson(res, 200, path === '/v1/models' ? { object: 'list', data: [this.model] } : this.model);
    }
    const routes = `GET /v1/models, POST /v1/chat/completions${this.textCompletion !== undefined ? ', POST /v1/completions' : ''}`;
    throw new ApiError(404, 'unknown_url', `no route ${method} ${path || '/'}; routes: ${routes}`);
  }

  private logRefused(req: http.IncomingMessage, refusal: ApiError): void {
    const peer = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    this.options.log?.('request.refused', { peer, status: refusal.status, reason: refusal.code, path: req.url, origin: req.headers.origin });
  }

  /** Throws the refusal of a foreign browser page, a draining server, a missing token or a full connection budget. */
  private admit(req: http.IncomingMessage): void {
    if (!originAllowed(req, this.options.allowOrigins ?? [])) {
      throw new ApiError(403, 'forbidden_origin', `browser origin ${String(req.headers.origin)} is not allowed (serve-policy --allow-origin)`);
    }
    if (this.#draining) throw new ApiError(503, 'server_closing', 'the server is shutting down');
    if (this.options.token !== undefined && !tokenMatches(requestToken(req), this.options.token)) {
      throw new ApiError(401, 'invalid_api_key', "missing or wrong bearer token: send Authorization: Bearer <token> (the server's --token)");
    }
    if (this.options.budget?.admit(req.socket) === false) throw new ApiError(503, 'TOO_MANY_CONNECTIONS', tooManyConnections('serve-policy'));
  }
}
