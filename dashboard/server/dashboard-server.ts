/**
 * The dashboard: one HTTP server on one port serving the page and its assets (offline), the JSON
 * API, and the `/live` WebSocket. Runs are added after start, from any mix of sources: a live
 * event stream in this process (a TrainingSystem's or RolloutSystem's `events`), a run directory,
 * or a remote event server.
 *
 * @example
 * const dashboard = await startDashboard({ port: 8787, portFallbacks: 20 });
 * dashboard.addLive(training.events, { label: 'grpo' });
 * await dashboard.addRunDir('runs/baseline');
 * console.log(dashboard.url);
 *
 * Access (./access.ts): requests whose `Host` is not this machine's are refused (DNS rebinding),
 * browser pages of other sites too, and with `token` every request needs it. `/healthz` and
 * `/readyz` answer first, for probes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { Observable } from 'rxjs';
import { answerHealth } from '../../servers/listener/health.ts';
import type { OpsLog } from '../../servers/listener/ops-log.ts';
import { DashboardAccess, type AccessDecision } from './access.ts';
import { ApiRoutes } from './api-routes.ts';
import { DashboardRun } from './dashboard-run.ts';
import type { BoardEvent } from './episode-board.ts';
import { listenWithFallback } from './listen.ts';
import { LiveHub, type LiveHubOptions, type LiveHubStats } from './live-hub.ts';
import { connectRemoteSource, type RemoteSource } from './remote-source.ts';
import { RunDirReader } from './run-dir.ts';
import { StaticAssets } from './static-assets.ts';
import { errorMessage } from '../../envs/error-message.ts';

export interface DashboardOptions extends LiveHubOptions {
  /** Default 0: a port the OS assigns. */
  readonly port?: number;
  /** Default `127.0.0.1`. Beyond loopback, give a `token` (the CLI insists, or warns). */
  readonly host?: string;
  /** Every request (page, API, `/live`) must carry it: Bearer, Basic password, `?token=` then a cookie. */
  readonly token?: string;
  /** `Host` names answered besides loopback, the bind address, this machine's name and addresses. */
  readonly allowedHosts?: readonly string[];
  /** One JSON line per refused request and per `/live` page (`createOpsLog`). */
  readonly log?: OpsLog;
  /** Ports tried after `port` when it is taken (port+1 …), before one the OS assigns. Default 0. */
  readonly portFallbacks?: number;
  /** How often a run directory's metrics.jsonl is checked for new lines (ms). Default 2 000. */
  readonly metricsPollMs?: number;
  /** Background problems (a dropped connection, an unreadable directory), for the terminal. */
  readonly warn?: (message: string) => void;
}

export interface LiveRunOptions {
  readonly label?: string;
  /** The run directory, for trajectories; a training run's `training.started` also names it. */
  readonly dir?: string;
}

export interface Dashboard {
  readonly url: string;
  readonly port: number;
  /** Shows a live event stream; the run stops being live when the stream completes. */
  addLive(events: Observable<{ readonly type: string }>, options?: LiveRunOptions): DashboardRun;
  /** Shows a run directory (charts, trajectories); follows metrics.jsonl while it grows. */
  addRunDir(dir: string, options?: { label?: string }): Promise<DashboardRun>;
  /** Shows a run served by an event server (`ws://…`); throws BAD_URL for anything else. */
  connect(url: string, options?: { label?: string; token?: string; reconnectMs?: number }): DashboardRun;
  runs(): readonly DashboardRun[];
  stats(): LiveHubStats;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // Everything comes from this server: the page works offline and loads nothing from elsewhere.
  'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
};

/** Node's defaults are 60 s for headers and 300 s per request: a read-only page needs far less. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Pages and API clients at once; a browser opens about six per page. */
const MAX_CONNECTIONS = 256;

export async function startDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const warn = options.warn ?? (() => {});
  const log: OpsLog = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const access = new DashboardAccess({ host, ...(options.token !== undefined ? { token: options.token } : {}), ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}) });
  let closing: Promise<void> | undefined;
  const now = options.now ?? Date.now;
  const runs: DashboardRun[] = [];
  const cleanups: (() => void)[] = [];
  const list = () => runs;
  const assets = new StaticAssets();
  const api = new ApiRoutes(list);
  const hub = new LiveHub(list, options);
  let nextId = 1;
  const newRun = (label: string, kind: DashboardRun['kind']) => {
    const run = new DashboardRun(`r${nextId++}`, label, kind, now, warn);
    runs.push(run);
    return run;
  };

  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (request, response) => {
    if (answerHealth(request, response, () => ({ ready: closing === undefined, ...(closing ? { reason: 'closing' } : {}), detail: { runs: runs.length, pages: hub.stats().pages } }))) return;
    const decision = access.check(request);
    if (!decision.ok) return refuse(response, decision, request);
    const headers: Record<string, string> = decision.setCookie !== undefined ? { 'Set-Cookie': decision.setCookie } : {};
    if (decision.redirect !== undefined) return send(response, 303, 'text/plain; charset=utf-8', 'signed in\n', { ...headers, Location: decision.redirect });
    serve(request, response, headers).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'application/json', JSON.stringify({ error: { code: 'INTERNAL', message: String(error) } }));
      else response.destroy();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const decision = access.check(request);
    if (!decision.ok) {
      log('request.refused', { peer: request.socket.remoteAddress, reason: decision.code, path: '/live', host: request.headers.host, origin: request.headers.origin });
      const body = JSON.stringify({ error: { code: decision.code, message: decision.message } });
      const status = decision.status === 401 ? '401 Unauthorized' : '403 Forbidden';
      return void socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }
    if (pathOf(request) !== '/live') return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    const peer = request.socket.remoteAddress;
    log('live.opened', { peer });
    socket.once('close', () => log('live.closed', { peer }));
    hub.handleUpgrade(request, socket, head);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  function refuse(response: ServerResponse, decision: Extract<AccessDecision, { ok: false }>, request: IncomingMessage): void {
    log('request.refused', { peer: request.socket.remoteAddress, reason: decision.code, path: pathOf(request), host: request.headers.host, origin: request.headers.origin });
    // A browser asked for the token shows its own prompt: any user name, the token as password.
    const challenge: Record<string, string> = decision.status === 401 ? { 'WWW-Authenticate': 'Basic realm="actorgym dashboard", charset="UTF-8"' } : {};
    send(response, decision.status, 'application/json', JSON.stringify({ error: { code: decision.code, message: decision.message } }), { ...challenge, Connection: 'close' });
  }

  async function serve(request: IncomingMessage, response: ServerResponse, extra: Record<string, string>): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(response, 405, 'application/json', JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: 'the dashboard is read-only: GET only' } }), { Allow: 'GET, HEAD' });
    }
    const pathname = pathOf(request);
    if (pathname.startsWith('/api/')) {
      const { status, body, type } = await api.handle(pathname);
      if (Buffer.isBuffer(body)) return send(response, status, type ?? 'application/octet-stream', body, { ...extra, 'Cache-Control': 'private, max-age=60' });
      return send(response, status, 'application/json', JSON.stringify(body), { ...extra, 'Cache-Control': 'no-store' });
    }
    const asset = await assets.get(pathname);
    if (!asset) return send(response, 404, 'text/plain; charset=utf-8', `not found: ${pathname}\n`, extra);
    return send(response, 200, asset.type, asset.body, extra);
  }

  let port: number;
  try {
    port = await listenWithFallback(server, options.port ?? 0, host, options.portFallbacks ?? 0);
  } catch (error) {
    hub.close();
    throw error;
  }
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  log('server.listening', { host, port, auth: options.token !== undefined ? 'token' : 'none' });

  return {
    url: `http://${shownHost}:${port}/`,
    port,
    runs: list,
    stats: () => hub.stats(),
    addLive(events, runOptions = {}) {
      const run = newRun(runOptions.label ?? 'live', 'live');
      run.setStatus('waiting for events', true);
      if (runOptions.dir !== undefined) run.attachDir(runOptions.dir);
      const subscription = events.subscribe({
        // Events are read field by field with type checks (episode-board.ts), so any event object is safe here.
        next: (event) => run.apply(event as BoardEvent),
        complete: () => {
          const status = run.info().status;
          run.setStatus(status === 'waiting for events' ? 'ended' : status, false);
        },
        error: (error: unknown) => run.setStatus(`failed: ${errorMessage(error)}`, false),
      });
      cleanups.push(() => subscription.unsubscribe());
      return run;
    },
    async addRunDir(dir, runOptions = {}) {
      const reader = await RunDirReader.open(dir);
      const run = newRun(runOptions.label ?? path.basename(reader.root), 'dir');
      run.dir = reader;
      const env = (await reader.config())?.env;
      if (typeof env === 'string') run.env = env;
      const poll = async () => {
        const { rows, restarted } = await reader.newMetrics().catch(() => ({ rows: [], restarted: false }));
        if (restarted) run.series.replaceAll(rows);
        else run.series.load(rows);
        const steps = run.series.all().length;
        if (reader.kind === 'evaluation') return run.setStatus('evaluation', false);
        run.setStatus(`${steps} step${steps === 1 ? '' : 's'} logged${reader.badMetricLines > 0 ? ` (${reader.badMetricLines} unreadable lines skipped)` : ''}`, false);
      };
      await poll();
      const timer = setInterval(() => void poll(), options.metricsPollMs ?? 2_000);
      timer.unref();
      cleanups.push(() => clearInterval(timer));
      return run;
    },
    connect(url, remoteOptions = {}) {
      const label = remoteOptions.label ?? url.replace(/^wss?:\/\//, '').replace(/\/$/, '');
      let source: RemoteSource | undefined;
      const run = newRun(label, 'remote');
      try {
        source = connectRemoteSource(run, { url, token: remoteOptions.token, warn, ...(remoteOptions.reconnectMs !== undefined ? { reconnectMs: remoteOptions.reconnectMs } : {}) });
      } catch (error) {
        runs.splice(runs.indexOf(run), 1);
        throw error;
      }
      cleanups.push(() => source?.close());
      return run;
    },
    close() {
      closing ??= (async () => {
        for (const cleanup of cleanups) cleanup();
        hub.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
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
