/**
 * Child of browser-signals.test.ts: opens a web session through the process-wide browser host,
 * prints `ready <pid> <chromium pids>`, then idles until a signal ends it.
 *   node --import tsx browser-signals-child.ts START_URL
 */
import { chromiumBrowserPids } from '../../../envs/web/browser/processes.ts';
import { openWebSession } from '../../../envs/web/browser/web-session.ts';

const session = await openWebSession({ instanceId: 'signals', startUrl: process.argv[2]! });
await session.observe();
process.stdout.write(`ready ${process.pid} ${chromiumBrowserPids().join(',')}\n`);
setInterval(() => undefined, 1000);
