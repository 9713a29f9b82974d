/**
 * The dashboard's HTTP side: every request passes the health probes first (no token, for
 * orchestrators), then access (./access.ts: Host, Origin, token), then reaches the JSON API or a
 * static asset; `/live` upgrades pass the same access check before the live hub takes them.
 * Read-only: anything but GET and HEAD is a 405.
 *
 * Sockets have the env server's connection budget (servers/listener/http-connection-budget.ts):
 * a socket is pending until a request or upgrade on it passes access; pending sockets are capped
 * (in all and per address) and closed after the handshake timeout; past `maxConnections` admitted
 * ones, a request on a new socket gets 503 `TOO_MANY_CONNECTIONS` and the socket is closed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerHealth, type HealthState } from '../../servers/listener/health.ts';
import { HttpConnectionBudget, httpBudgetOf, tooManyConnections, type HttpConnectionLimits } from '../../servers/listener/http-connection-budget.ts';
import type { OpsLog } from '../../servers/listener/ops-log.ts';
import type { AccessDecision, DashboardAccess } from './access.ts';
import type { ApiRoutes } from './api-routes.ts';
import type { LiveHub } from './live-hub.ts';
import type { StaticAssets } from './static-assets.ts';

export interface DashboardHttpParts {
  readonly access: DashboardAccess;
  readonly api: ApiRoutes;
  readonly assets: StaticAssets;
  readonly hub: LiveHub;
  readonly log: OpsLog;
  /** What `/readyz` answers. */
  readonly health: () => HealthState;
  /** The connection budget; each limit defaults to the env server's. */
  readonly limits?: HttpConnectionLimits;
}

/** The dashboard's HTTP server, not yet listening, and its connection budget (closed with it). */
export interface DashboardHttpServer {
  readonly server: Server;
  readonly budget: HttpConnectionBudget;
}

type Refusal = Extract<AccessDecision, { ok: false }>;

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // Everything comes from this server: the page works offline and loads nothing from elsewhere.
  'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
};

/** Node's defaults are 60 s for headers and 300 s per request: a read-only page needs far less. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/** The dashboard's HTTP server, not yet listening. */
export function createDashboardHttp(parts: DashboardHttpParts): DashboardHttpServer {
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS });
  const budget = new HttpConnectionBudget(server, httpBudgetOf(parts.limits ?? {}, parts.log));
  const http = new DashboardHttp(parts, budget);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => http.request(request, response));
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => http.upgrade(request, socket, head));
  server.on('clientError', (_error, socket) => socket.destroy());
  return { server, budget };
}

const TOO_MANY = { code: 'TOO_MANY_CONNECTIONS', message: tooManyConnections('dashboard') };

class DashboardHttp {
  constructor(
    private readonly parts: DashboardHttpParts,
    private readonly budget: HttpConnectionBudget,
  ) {}

  request(request: IncomingMessage, response: ServerResponse): void {
    if (answerHealth(request, response, this.parts.health)) return;
    const decision = this.parts.access.check(request);
    if (!decision.ok) return this.refuse(response, decision, request);
    if (!this.budget.admit(request.socket)) {
      return send(response, 503, 'application/json', JSON.stringify({ error: TOO_MANY }), { 'Retry-After': '1', Connection: 'close' });
    }
    const headers: Record<string, string> = decision.setCookie !== undefined ? { 'Set-Cookie': decision.setCookie } : {};
    if (decision.redirect !== undefined) return send(response, 303, 'text/plain; charset=utf-8', 'signed in\n', { ...headers, Location: decision.redirect });
    this.serve(request, response, headers).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'application/json', JSON.stringify({ error: { code: 'INTERNAL', message: String(error) } }));
      else response.destroy();
    });
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { access, log, hub } = this.parts;
    socket.on('error', () => {});
    const decision = access.check(request);
    if (!decision.ok) {
      log('request.refused', refusalFields(request, decision, '/live'));
      const body = JSON.stringify({ error: { code: decision.code, message: decision.message } });
      const status = decision.status === 401 ? '401 Unauthorized' : '403 Forbidden';
      return void socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }
    if (!this.budget.admit(socket)) {
      const body = JSON.stringify({ error: TOO_MANY });
      return void socket.end(`HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }
    if (pathOf(request) !== '/live') return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    const peer = request.socket.remoteAddress;
    log('live.opened', { peer });
    socket.once('close', () => log('live.closed', { peer }));
    hub.handleUpgrade(request, socket, head);
  }

  private refuse(response: ServerResponse, decision: Refusal, request: IncomingMessage): void {
    this.parts.log('request.refused', refusalFields(request, decision, pathOf(request)));
    // A browser asked for the token shows its own prompt: any user name, the token as password.
    const challenge: Record<string, string> = decision.status === 401 ? { 'WWW-Authenticate': 'Basic realm="actorgym dashboard", charset="UTF-8"' } : {};
    send(response, decision.status, 'application/json', JSON.stringify({ error: { code: decision.code, message: decision.message } }), { ...challenge, Connection: 'close' });
  }

  private async serve(request: IncomingMessage, response: ServerResponse, extra: Record<string, string>): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(response, 405, 'application/json', JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: 'the dashboard is read-only: GET only' } }), { Allow: 'GET, HEAD' });
    }
    const pathname = pathOf(request);
    if (pathname.startsWith('/api/')) {
      const { status, body, type } = await this.parts.api.handle(pathname);
      if (Buffer.isBuffer(body)) return send(response, status, type ?? 'application/octet-stream', body, { ...extra, 'Cache-Control': 'private, max-age=60' });
      return send(response, status, 'application/json', JSON.stringify(body), { ...extra, 'Cache-Control': 'no-store' });
    }
    const asset = await this.parts.assets.get(pathname);
    if (!asset) return send(response, 404, 'text/plain; charset=utf-8', `not found: ${pathname}\n`, extra);
    return send(response, 200, asset.type, asset.body, extra);
  }
}

/** The fields of a `request.refused` line. */
function refusalFields(request: IncomingMessage, decision: Refusal, path: string) {
  return { peer: request.socket.remoteAddress, reason: decision.code, path, host: request.headers.host, origin: request.headers.origin };
}

function pathOf(request: IncomingMessage): string {
  try {
    return new URL(request.url ?? '/', 'http://dashboard').pathname;
  } catch {
    return '/';
  }
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...SECURITY_HEADERS, ...headers });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
