/** What `actorgym dashboard` does (its options are in dashboard.ts). */
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { DashboardError, parseRunArg, startDashboard, type Dashboard } from '../../dashboard/index.ts';
import { connectionLimitsOf } from '../connection-budget-options.ts';
import { printJson } from '../output.ts';
import { dashboardAccess, DEFAULT_PORT_FALLBACKS, TOKEN_HINT, warn, type DashboardCommandOptions } from './dashboard.ts';

export async function runDashboard(options: DashboardCommandOptions): Promise<void> {
  if (options.run.length === 0 && options.connect.length === 0) {
    throw new Error('nothing to show: give --run DIR (a run directory) or --connect ws://HOST:PORT (an event server); `actorgym train` serves its own dashboard');
  }
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const guard = dashboardAccess(options.host, token);
  const dashboard = await startDashboard({
    port: options.port,
    portFallbacks: options.port === 0 ? 0 : DEFAULT_PORT_FALLBACKS,
    host: options.host,
    allowedHosts: options.allowHost,
    log: createOpsLog({ server: 'dashboard', enabled: options.logJson === true, secrets: [token] }),
    ...(guard.token !== undefined ? { token: guard.token } : {}),
    alarmMs: options.alarmSeconds * 1000,
    ...connectionLimitsOf(options),
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
}

function report(dashboard: Dashboard, json: boolean): void {
  const runs = dashboard.runs().map((run) => run.info());
  if (json) return printJson({ url: dashboard.url, runs });
  console.log(`dashboard: ${dashboard.url}`);
  for (const run of runs) console.log(`  ${run.label} (${run.kind}): ${run.status}`);
  console.log('Ctrl-C to stop');
}
