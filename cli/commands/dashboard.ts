/**
 * `actorgym dashboard`: serves the dashboard (dashboard/) for finished runs (`--run DIR`, several
 * for overlays) and remote runs (`--connect ws://…`), until Ctrl-C. Also the dashboard options of
 * `actorgym train` (and `npm start`), which serve a live run's dashboard while it trains
 * (cli/training-dashboard.ts). What the command does is in dashboard-action.ts, imported when it runs.
 */
import { Help, type Command } from 'commander';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import { addEventsPortOptions, EVENTS_PORT_OPTIONS, type EventsPortFlags } from '../events-port.ts';
import { addConnectionBudgetOptions, type ConnectionBudgetFlags } from '../connection-budget-options.ts';
import { port, positiveInt } from '../output.ts';

/** Tried first; when taken, the next DEFAULT_PORT_FALLBACKS ports, then one the OS assigns. */
export const DEFAULT_DASHBOARD_PORT = 8787;
export const DEFAULT_PORT_FALLBACKS = 20;

export const warn = (message: string) => process.stderr.write(`dashboard: ${message}\n`);
export const TOKEN_HINT = 'requires the token: open the URL once with ?token=<token> (it is then kept in a cookie), or send Authorization: Bearer <token>';

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
 * beyond it. Beyond loopback without a token nothing starts (issue 40, finding 5): the error
 * names `flag`, the option that chose the host.
 */
export function dashboardAccess(host: string, token: string | undefined, flag = '--host'): { token?: string } {
  if (isLoopbackHost(host)) return {};
  if (token !== undefined && token !== '') return { token };
  throw new Error(
    `${flag} ${host} is beyond loopback: a dashboard or event stream there needs a token, or anyone who can reach this machine could read the run; ` +
      `give --token T (or ACTORGYM_TOKEN), or leave ${flag} out to listen on 127.0.0.1`,
  );
}

/**
 * The check of `dashboardAccess` for a training command's --dashboard-host, before anything runs:
 * only when something listens there (the dashboard, or --events-port).
 */
export function checkDashboardHost(options: DashboardCliOptions): { token?: string } {
  const listens = options.dashboard !== false || options.eventsPort !== undefined;
  if (!listens) return {};
  return dashboardAccess(options.dashboardHost ?? '127.0.0.1', options.token ?? process.env.ACTORGYM_TOKEN, '--dashboard-host');
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
    .option('--dashboard-host <host>', 'host of the dashboard and of --events-port (default 127.0.0.1; beyond loopback both require --token or ACTORGYM_TOKEN, and the command refuses to start without one)')
    .option('--events-port <port>', 'also serve the event stream over WebSocket, for `actorgym dashboard --connect` elsewhere', port);
  return addEventsPortOptions(command);
}

export interface DashboardCommandOptions extends ConnectionBudgetFlags {
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
  const command = program
    .command('dashboard')
    .description('serve the dashboard for run directories (--run, several to overlay) and remote runs (--connect); Ctrl-C stops it')
    .option('--run <dir>', 'a run directory (actorgym train --out DIR), or LABEL=DIR to name it; repeat to overlay runs', collect, [])
    .option('--connect <url>', 'an event server, e.g. ws://host:8200 (actorgym train --events-port 8200); repeatable', collect, [])
    .option('--token <token>', 'bearer token for --connect, and required of every browser and client when --host is beyond loopback (or ACTORGYM_TOKEN)')
    .option('--port <port>', `port (default ${DEFAULT_DASHBOARD_PORT}, else the next free one; 0 = any)`, port, DEFAULT_DASHBOARD_PORT)
    .option('--host <host>', 'host to listen on; beyond loopback the dashboard requires --token and refuses to start without one (open it once as /?token=T)', '127.0.0.1')
    .option('--allow-host <name>', 'a Host name the dashboard answers to besides loopback names and this machine\'s own (its host name, its FQDN when resolvable, its interface addresses) (repeatable)', collect, [])
    .option('--alarm-seconds <s>', 'the episode board flags episodes stuck in one state this long', positiveInt('--alarm-seconds'), 30)
    .option('--json', 'print {url, runs} as JSON on stdout once serving')
    .option('--log-json', 'one JSON line on stderr per refused request and per page connection');
  addConnectionBudgetOptions(command)
    .action(async (options: DashboardCommandOptions) => (await import('./dashboard-action.ts')).runDashboard(options));
}
