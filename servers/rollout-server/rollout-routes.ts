/**
 * The rollout service's request gate and routes, in the policy server's order: the health probes
 * (no token, as orchestrators call them), the browser Origin (403), the drain (503), the bearer
 * token (401), the connection budget (503 `TOO_MANY_CONNECTIONS` on a new connection past
 * `maxConnections`), then `POST /v1/rollouts` (./rollouts-post.ts) and `DELETE /v1/rollouts/{id}`.
 * Errors are `{ error: { message, field? } }`; every request is counted until it is answered, so
 * a draining service can wait for its streams.
 */
import type http from 'node:http';
import { requestToken, tokenMatches } from '../../transport/wire/auth.ts';
import { originAllowed } from '../../transport/wire/origin.ts';
import { answerHealth, type HealthState } from '../listener/health.ts';
import { tooManyConnections, type HttpConnectionBudget } from '../listener/http-connection-budget.ts';
import { InFlightRequests } from '../policy-server/in-flight.ts';
import { postRollouts, type RolloutsPostParts } from './rollouts-post.ts';
import { asRequestError, RequestError, sendRequestError } from './request-error.ts';

export interface RolloutAccess {
  readonly token?: string | undefined;
  readonly allowOrigins?: readonly string[] | undefined;
  /** The server's connection budget: a request that passes the token check admits its socket (or is refused 503). */
  readonly budget?: Pick<HttpConnectionBudget, 'admit'>;
}

export class RolloutRoutes {
  readonly inFlight = new InFlightRequests();
  #draining = false;

  constructor(
    private readonly access: RolloutAccess,
    private readonly parts: RolloutsPostParts,
  ) {}

  get draining(): boolean {
    return this.#draining;
  }

  /** From now on requests get 503 and `/readyz` 503. */
  startDraining(): void {
    this.#draining = true;
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.inFlight.track(res);
    this.route(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      sendRequestError(res, asRequestError(error));
    });
  }

  health(): HealthState {
    const { batches } = this.parts;
    const detail = { batches: batches.size, maxBatches: batches.maxBatches };
    if (this.#draining) return { ready: false, reason: 'draining', detail };
    if (batches.full) return { ready: false, reason: 'at capacity', detail };
    return { ready: true, detail };
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (answerHealth(req, res, () => this.health())) return;
    this.admit(req);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = (q < 0 ? url : url.slice(0, q)).replace(/\/+$/, '');
    const method = req.method ?? '?';
    if (path === '/v1/rollouts') {
      if (method !== 'POST') throw new RequestError(405, `use POST on ${path}, not ${method}`);
      return postRollouts(this.parts, req, res);
    }
    const one = /^\/v1\/rollouts\/([^/]+)$/.exec(path);
    if (one !== null) {
      if (method !== 'DELETE') throw new RequestError(405, `use DELETE on ${path}, not ${method}`);
      const id = decodeURIComponent(one[1] ?? '');
      if (!this.parts.batches.cancel(id, 'cancelled by DELETE /v1/rollouts/{id}')) throw new RequestError(404, `no running batch "${id}"`);
      res.writeHead(204).end();
      return;
    }
    throw new RequestError(404, `no route ${method} ${path || '/'}; routes: POST /v1/rollouts, DELETE /v1/rollouts/{id}, GET /healthz, GET /readyz`);
  }

  /** Throws the refusal of a foreign browser page, a draining service, a missing token or a full connection budget. */
  private admit(req: http.IncomingMessage): void {
    if (!originAllowed(req, this.access.allowOrigins ?? [])) throw new RequestError(403, `browser origin ${String(req.headers.origin)} is not allowed (rollout-server --allow-origin)`);
    if (this.#draining) throw new RequestError(503, 'the service is shutting down');
    if (this.access.token !== undefined && !tokenMatches(requestToken(req), this.access.token)) {
      throw new RequestError(401, "missing or wrong bearer token: send Authorization: Bearer <token> (the service's --token)");
    }
    if (this.access.budget?.admit(req.socket) === false) throw new RequestError(503, tooManyConnections('rollout-server'), undefined, 'TOO_MANY_CONNECTIONS');
  }
}
