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
 *
 * `startDashboard` composes the runs (./dashboard-runs.ts), the live hub (./live-hub.ts) and the
 * HTTP side (./dashboard-http.ts); `DashboardServer` is the handle.
 */
import type { Server } from 'node:http';
import type { Observable } from 'rxjs';
import type { HttpConnectionLimits } from '../../servers/listener/http-connection-budget.ts';
import type { OpsLog } from '../../servers/listener/ops-log.ts';
import { DashboardAccess } from './access.ts';
import { DashboardError } from './errors.ts';
import { machineNames } from './machine-names.ts';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import { ApiRoutes } from './api-routes.ts';
import { createDashboardHttp } from './dashboard-http.ts';
import type { HttpConnectionBudget } from '../../servers/listener/http-connection-budget.ts';
import type { DashboardRun } from './dashboard-run.ts';
import { DashboardRuns, type LiveRunOptions, type RemoteRunOptions } from './dashboard-runs.ts';
import { listenWithFallback } from './listen.ts';
import { LiveHub, type LiveHubOptions, type LiveHubStats } from './live-hub.ts';
import { StaticAssets } from './static-assets.ts';

export type { LiveRunOptions } from './dashboard-runs.ts';

/** The connection budget (`maxConnections`, `maxPendingConnections`, `maxPendingPerAddress`, `handshakeTimeoutMs`) defaults to the env server's. */
export interface DashboardOptions extends LiveHubOptions, HttpConnectionLimits {
  /** Default 0: a port the OS assigns. */
  readonly port?: number;
  /** Default `127.0.0.1`. Beyond loopback a `token` is required (TOKEN_REQUIRED without one). */
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

export interface Dashboard {
  readonly url: string;
  readonly port: number;
  /** Shows a live event stream; the run stops being live when the stream completes. */
  addLive(events: Observable<{ readonly type: string }>, options?: LiveRunOptions): DashboardRun;
  /** Shows a run directory (charts, trajectories); follows metrics.jsonl while it grows. */
  addRunDir(dir: string, options?: { label?: string }): Promise<DashboardRun>;
  /** Shows a run served by an event server (`ws://…`); throws BAD_URL for anything else. */
  connect(url: string, options?: RemoteRunOptions): DashboardRun;
  runs(): readonly DashboardRun[];
  stats(): LiveHubStats;
  close(): Promise<void>;
}

/**
 * Starts the dashboard on one port: the page, its JSON API and the `/live` WebSocket. Add runs
 * with the handle (`addLive`, `addRunDir`, `connect`). Resolves once listening; rejects when no
 * port of `port … port+portFallbacks` (then any) can be bound.
 */
export async function startDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const log: OpsLog = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  requireTokenBeyondLoopback(host, options.token);
  const names = await machineNames();
  const runs = new DashboardRuns({ now: options.now ?? Date.now, warn: options.warn ?? (() => {}), metricsPollMs: options.metricsPollMs ?? 2_000 });
  const hub = new LiveHub(runs.list, options);
  const closing = { started: false };
  const { server, budget } = createDashboardHttp({
    access: new DashboardAccess({ host, machineNames: names, ...(options.token !== undefined ? { token: options.token } : {}), ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}) }),
    api: new ApiRoutes(runs.list),
    assets: new StaticAssets(),
    hub,
    log,
    health: () => ({ ready: !closing.started, ...(closing.started ? { reason: 'closing' } : {}), detail: { runs: runs.list().length, pages: hub.stats().pages } }),
    limits: options,
  });
  const port = await listenWithFallback(server, options.port ?? 0, host, options.portFallbacks ?? 0).catch((error: unknown) => {
    hub.close();
    budget.close();
    throw error;
  });
  log('server.listening', { host, port, auth: options.token !== undefined ? 'token' : 'none' });
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return new DashboardServer(`http://${shownHost}:${port}/`, port, { server, budget, runs, hub, closing });
}

/**
 * Beyond loopback the run data would be open to the network without a token (issue 40, finding
 * 5): the dashboard does not start. Loopback binds need none (Host and Origin checks keep other
 * sites' pages out).
 */
function requireTokenBeyondLoopback(host: string, token: string | undefined): void {
  if (isLoopbackHost(host) || (token !== undefined && token !== '')) return;
  throw new DashboardError('TOKEN_REQUIRED', `the dashboard would listen on ${host}, beyond loopback, without a token: anyone who can reach this machine could read the runs; give a token (--token or ACTORGYM_TOKEN), or listen on 127.0.0.1`);
}

interface DashboardParts {
  readonly server: Server;
  readonly budget: HttpConnectionBudget;
  readonly runs: DashboardRuns;
  readonly hub: LiveHub;
  /** Set once `close()` is called: `/readyz` answers 503 from then on. */
  readonly closing: { started: boolean };
}

class DashboardServer implements Dashboard {
  #closed: Promise<void> | undefined;

  constructor(
    readonly url: string,
    readonly port: number,
    private readonly parts: DashboardParts,
  ) {}

  readonly runs = (): readonly DashboardRun[] => this.parts.runs.list();

  stats(): LiveHubStats {
    return this.parts.hub.stats();
  }

  addLive(events: Observable<{ readonly type: string }>, options?: LiveRunOptions): DashboardRun {
    return this.parts.runs.addLive(events, options);
  }

  addRunDir(dir: string, options?: { label?: string }): Promise<DashboardRun> {
    return this.parts.runs.addRunDir(dir, options);
  }

  connect(url: string, options?: RemoteRunOptions): DashboardRun {
    return this.parts.runs.connect(url, options);
  }

  close(): Promise<void> {
    this.parts.closing.started = true;
    this.#closed ??= this.shutdown();
    return this.#closed;
  }

  private async shutdown(): Promise<void> {
    const { server, budget, runs, hub } = this.parts;
    runs.close();
    hub.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      budget.destroyAll();
    });
  }
}
