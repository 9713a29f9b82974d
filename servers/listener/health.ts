/**
 * `/healthz` and `/readyz` for every server, as orchestrators probe them: healthz answers 200
 * while the process serves HTTP at all; readyz answers 200 only while the server accepts new work
 * (not while draining, not past a capacity limit) and 503 otherwise. Both carry a small JSON body.
 * Every answer closes its connection: a probe's socket has not authenticated, so the pending
 * budget would destroy it at its deadline, and a keep-alive client (fetch) that reused it then
 * would get ECONNRESET mid-request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HealthState {
  /** Accepting new work now. */
  readonly ready: boolean;
  /** Why not ready, when not (`draining`, `at capacity` …). */
  readonly reason?: string;
  /** Extra figures for operators (instances, connections …). */
  readonly detail?: Readonly<Record<string, number | string | boolean>>;
}

/** Answers a health probe and returns true, or returns false for any other request. */
export function answerHealth(request: IncomingMessage, response: ServerResponse, state: () => HealthState): boolean {
  const path = (request.url ?? '').split('?')[0];
  if (path !== '/healthz' && path !== '/readyz') return false;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json', Connection: 'close' });
    response.end(JSON.stringify({ error: 'method not allowed' }));
    return true;
  }
  const now = state();
  const ok = path === '/healthz' || now.ready;
  const body = { status: ok ? 'ok' : 'unavailable', ready: now.ready, ...(now.reason ? { reason: now.reason } : {}), ...(now.detail ?? {}) };
  response.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Connection: 'close' });
  response.end(request.method === 'HEAD' ? undefined : `${JSON.stringify(body)}\n`);
  return true;
}
