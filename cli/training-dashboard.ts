/**
 * The live dashboard (and `--events-port` stream) of a training run, as `train`, `sft` and `start`
 * serve it while they run; their options are added by `addDashboardOptions` (commands/dashboard.ts).
 */
import type { Observable } from 'rxjs';
import { startDashboard } from '../dashboard/index.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { serveEventsPort } from './events-port.ts';
import { checkDashboardHost, DEFAULT_DASHBOARD_PORT, DEFAULT_PORT_FALLBACKS, TOKEN_HINT, warn, type DashboardCliOptions } from './commands/dashboard.ts';
import { errorMessage } from '../envs/error-message.ts';

/**
 * Serves the dashboard of a training run and prints its URL on stderr. A dashboard that cannot
 * start is reported and skipped: it never stops the training.
 */
export async function serveTrainingDashboard(events: Observable<TrainingEvent>, options: DashboardCliOptions = {}): Promise<{ close(): Promise<void> }> {
  const closers: (() => Promise<void>)[] = [];
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  // Beyond loopback without a token this throws: the command stops before its run (issue 40).
  const guard = checkDashboardHost(options);
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
      warn(`not started: ${errorMessage(error)} (training goes on)`);
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
