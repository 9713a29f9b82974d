/**
 * `actorgym dashboard`: serves the dashboard (dashboard/) for finished runs (`--run DIR`, several
 * for overlays) and remote runs (`--connect ws://…`), until Ctrl-C. Also the dashboard options of
 * `actorgym train` (and `npm start`), which serve a live run's dashboard while it trains.
 */
import { Help, type Command } from 'commander';
import type { Observable } from 'rxjs';
import { createOpsLog } from '../../actors/ops/ops-log.ts';
import { DashboardError, parseRunArg, startDashboard, type Dashboard } from '../../dashboard/index.ts';
import type { RunEvent } from '../../streams/events.ts';
import { isLoopbackHost } from '../../streams/wire/origin.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { addEventsPortOptions, EVENTS_PORT_OPTIONS, serveEventsPort, type EventsPortFlags } from '../events-port.ts';
import { port, positiveInt, printJson } from '../output.ts';

/** Tried first; when taken, the next DEFAULT_PORT_FALLBACKS ports, then one the OS assigns. */
export const DEFAULT_DASHBOARD_PORT = 8787;
const DEFAULT_PORT_FALLBACKS = 20;

const warn = (message: string) => process.stderr.write(`dashboard: ${message}\n`);
const TOKEN_HINT = 'requires the token: open the URL once with ?token=<token> (it is then kept in a cookie), or send Authorization: Bearer <token>';

/** `Commander` fills these from the options added by `addDashboardOptions`. */
export interface DashboardCliOptions extends EventsPortFlags {
  /** false with --no-dashboard. */
  dashboard?: boolean;
  dashboardPort?: number;
  dashboardHost?: string;
  eventsPort?: number;
  /** The command's `--token` (train has one, for --remote), else ACTORGYM_TOKEN. */
  token?: string;
}

/**
 * The token a dashboard bound to `host` requires: none on loopback (only this machine's programs
 * and pages reach it, and the Host and Origin checks keep other sites out), the command's token
 * beyond it, and a warning when there is none.
 */
export function dashboardAccess(host: string, token: string | undefined): { token?: string; warning?: string } {
  if (isLoopbackHost(host)) return {};
  if (token !== undefined && token !== '') return { token };
  return { warning: `listening on ${host} without --token (or ACTORGYM_TOKEN): anyone who can reach this machine can read these runs` };
}

const DASHBOARD_OPTIONS = new Set(['dashboard', 'dashboardPort', 'dashboardHost', 'eventsPort', ...EVENTS_PORT_OPTIONS]);

export function addDashboardOptions(command: Command): Command {
  // Added first (train.ts keeps its edit to one line), listed last in --help, before -h.
  command.configureHelp({
    visibleOptions: (cmd) => {
      const options = new Help().visibleOptions(cmd);
      const isOurs = (o: (typeof options)[number]) => DASHBOARD_OPTIONS.has(o.attributeName());
      const help = options.filter((o) => o.long === '--help');
      return [...options.filter((o) => !isOurs(o) && o.long !== '--help'), ...options.filter(isOurs), ...help];
    },
  });
  command
    .option('--no-dashboard', 'do not serve the live dashboard')
    .option('--dashboard-port <port>', `dashboard port (default ${DEFAULT_DASHBOARD_PORT}, else the next free one)`, port)
    .option('--dashboard-host <host>', 'host of the dashboard and of --events-port (default 127.0.0.1; beyond loopback both require --token or ACTORGYM_TOKEN)')
    .option('--events-port <port>', 'also serve the event stream over WebSocket, for `actorgym dashboard --connect` elsewhere', port);
  return addEventsPortOptions(command);
}

/**
 * Serves the dashboard of a training run and prints its URL on stderr. A dashboard that cannot
 * start is reported and skipped: it never stops the training.
 */
export async function serveTrainingDashboard(events: Observable<TrainingEvent>, options: DashboardCliOptions = {}): Promise<{ close(): Promise<void> }> {
  const closers: (() => Promise<void>)[] = [];
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const guard = dashboardAccess(options.dashboardHost ?? '127.0.0.1', token);
  if (guard.warning !== undefined && (options.dashboard !== false || options.eventsPort !== undefined)) warn(guard.warning);
  if (options.dashboard !== false) {
    try {
      const dashboard = await startDashboard({
        port: options.dashboardPort ?? DEFAULT_DASHBOARD_PORT,
        portFallbacks: DEFAULT_PORT_FALLBACKS,
        ...(options.dashboardHost !== undefined ? { host: options.dashboardHost } : {}),
        ...(guard.token !== undefined ? { token: guard.token } : {}),
        warn,
      });
      dashboard.addLive(events, { label: 'this run' });
      process.stderr.write(`dashboard: ${dashboard.url}\n`);
      if (guard.token !== undefined) warn(TOKEN_HINT);
      closers.push(() => dashboard.close());
    } catch (error) {
      warn(`not started: ${error instanceof Error ? error.message : String(error)} (training goes on)`);
    }
  }
  // Before the run, waiting for --wait-subscribers; closing it drains every subscriber.
  const host = options.dashboardHost !== undefined ? { host: options.dashboardHost } : {};
  // One token guards every port the command opens: the event stream takes it wherever it listens.
  const auth = token !== undefined && token !== '' ? { token } : {};
  const server = await serveEventsPort(events, options, { ...host, ...auth }).catch(async (error: unknown) => {
    await Promise.all(closers.map((close) => close()));
    throw error;
  });
  if (server) closers.push(() => server.close());
  return { close: async () => void (await Promise.all(closers.map((close) => close()))) };
}

interface DashboardCommandOptions {
  run: string[];
  connect: string[];
  token?: string;
  port: number;
  host: string;
  allowHost: string[];
  alarmSeconds: number;
  json?: boolean;
  logJson?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description('serve the dashboard for run directories (--run, several to overlay) and remote runs (--connect); Ctrl-C stops it')
    .option('--run <dir>', 'a run directory (actorgym train --out DIR), or LABEL=DIR to name it; repeat to overlay runs', collect, [])
    .option('--connect <url>', 'an event server, e.g. ws://host:8200 (actorgym train --events-port 8200); repeatable', collect, [])
    .option('--token <token>', 'bearer token for --connect, and required of every browser and client when --host is beyond loopback (or ACTORGYM_TOKEN)')
    .option('--port <port>', `port (default ${DEFAULT_DASHBOARD_PORT}, else the next free one; 0 = any)`, port, DEFAULT_DASHBOARD_PORT)
    .option('--host <host>', 'host to listen on; beyond loopback the dashboard requires --token (open it once as /?token=T)', '127.0.0.1')
    .option('--allow-host <name>', 'a Host name the dashboard answers to besides loopback, this machine\'s name and addresses (repeatable)', collect, [])
    .option('--alarm-seconds <s>', 'the episode board flags episodes stuck in one state this long', positiveInt('--alarm-seconds'), 30)
    .option('--json', 'print {url, runs} as JSON on stdout once serving')
    .option('--log-json', 'one JSON line on stderr per refused request and per page connection')
    .action(async (options: DashboardCommandOptions) => {
      if (options.run.length === 0 && options.connect.length === 0) {
        throw new Error('nothing to show: give --run DIR (a run directory) or --connect ws://HOST:PORT (an event server); `actorgym train` serves its own dashboard');
      }
      const token = options.token ?? process.env.ACTORGYM_TOKEN;
      const guard = dashboardAccess(options.host, token);
      if (guard.warning !== undefined) warn(guard.warning);
      const dashboard = await startDashboard({
        port: options.port,
        portFallbacks: options.port === 0 ? 0 : DEFAULT_PORT_FALLBACKS,
        host: options.host,
        allowedHosts: options.allowHost,
        log: createOpsLog({ server: 'dashboard', enabled: options.logJson === true }),
        ...(guard.token !== undefined ? { token: guard.token } : {}),
        alarmMs: options.alarmSeconds * 1000,
        warn,
      });
      try {
        for (const arg of options.run) {
          const { dir, label } = parseRunArg(arg);
          await dashboard.addRunDir(dir, label !== undefined ? { label } : {});
        }
        for (const url of options.connect) dashboard.connect(url, token !== undefined ? { token } : {});
      } catch (error) {
        await dashboard.close();
        throw error instanceof DashboardError ? new Error(`${error.code}: ${error.message}`) : error;
      }
      report(dashboard, options.json === true);
      if (guard.token !== undefined) warn(TOKEN_HINT);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await dashboard.close();
    });
}

function report(dashboard: Dashboard, json: boolean): void {
  const runs = dashboard.runs().map((run) => run.info());
  if (json) return printJson({ url: dashboard.url, runs });
  console.log(`dashboard: ${dashboard.url}`);
  for (const run of runs) console.log(`  ${run.label} (${run.kind}): ${run.status}`);
  console.log('Ctrl-C to stop');
}
