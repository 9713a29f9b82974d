/**
 * `actorgym serve`: its options and help. What it does (the env and its servers) is in
 * serve-action.ts, imported when the command runs.
 */
import { Option, type Command } from 'commander';
import { DEFAULT_MAX_INSTANCES as HTTP_MAX_INSTANCES, DEFAULT_MAX_INSTANCES_PER_CLIENT as HTTP_MAX_INSTANCES_PER_CLIENT } from '../../servers/agentgym-http/limits.ts';
import {
  ENV_SERVER_FRAME_BUDGET,
  ENV_SERVER_MAX_INSTANCES,
  ENV_SERVER_MAX_INSTANCES_PER_CLIENT,
  ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES,
  RATE_LIMIT,
  SERVER_DRAIN_TIMEOUT_MS,
} from '../../transport/wire/limits.ts';
import { connectionBudgetOption } from '../connection-budget-options.ts';
import { frameBudgetOption } from '../frame-budget-option.ts';
import { nonNegativeInt, port, positiveInt } from '../output.ts';

export interface ServeOptions {
  port: number;
  host: string;
  /** `--token`, repeatable: each token its own client for the per-client quotas. */
  token: string[];
  agentgymHttp?: number;
  maxInstances: number;
  maxInstancesPerConnection: number;
  maxConnections: number;
  maxPendingConnections: number;
  maxPendingPerAddress: number;
  maxInstancesPerClient: number;
  frameBudget: number;
  framesPerTurn: 'one' | 'all';
  maxBufferedBytes: number;
  rateLimit: number;
  handshakeTimeout: number;
  drainTimeout: number;
  allowOrigin: string[];
  logJson?: boolean;
  httpToken: string[];
  httpMaxInstances: number;
  httpMaxInstancesPerClient: number;
  /** AgentGym's episode rules on the HTTP port (default true; `--no-agentgym-compat`). */
  agentgymCompat: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The tokens `serve` accepts: every `--token`, else ACTORGYM_TOKEN (one token: clients send the same variable). */
export function serveTokens(options: Pick<ServeOptions, 'token'>, env: NodeJS.ProcessEnv = process.env): string[] {
  if (options.token.length > 0) return options.token;
  return env.ACTORGYM_TOKEN ? [env.ACTORGYM_TOKEN] : [];
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve an environment over WebSocket (and optionally AgentGym HTTP) for remote rollouts and training')
    .argument('<env>', 'environment id (see `actorgym envs`)')
    .option('--port <port>', 'WebSocket port (0 picks a free one)', port, 8100)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <token>', 'require a bearer token on both ports (or ACTORGYM_TOKEN); repeatable: any of them is accepted, each its own client for the per-client quotas', collect, [])
    .option('--agentgym-http <port>', "also speak AgentGym's HTTP protocol on this port", port)
    .option('--max-instances <n>', 'env instances over all connections (more get TOO_MANY_INSTANCES)', positiveInt('--max-instances'), ENV_SERVER_MAX_INSTANCES)
    .option('--max-instances-per-connection <n>', 'env instances one connection may hold', positiveInt('--max-instances-per-connection'), 1024)
    .option('--max-instances-per-client <n>', 'env instances one client (a token, else a remote address) may hold over all its connections', positiveInt('--max-instances-per-client'), ENV_SERVER_MAX_INSTANCES_PER_CLIENT)
    .addOption(connectionBudgetOption('maxConnections'))
    .addOption(connectionBudgetOption('maxPendingConnections'))
    .addOption(connectionBudgetOption('maxPendingPerAddress'))
    .addOption(frameBudgetOption('the env server', ENV_SERVER_FRAME_BUDGET.perSecond))
    .addOption(new Option('--frames-per-turn <n>', "a connection's frames handed over per event-loop turn: one keeps health probes and other peers answered under a flood; all is faster for one pipelining peer").choices(['one', 'all']).default('one'))
    .option('--max-buffered-bytes <bytes>', 'replies queued for all peers together, WebSocket and AgentGym HTTP (one budget for the process); a peer over its share is served no more until it reads, and past the total it is closed', positiveInt('--max-buffered-bytes'), ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES)
    .option('--rate-limit <frames-per-s>', 'frames per second one connection may send (0: no limit)', nonNegativeInt('--rate-limit'), RATE_LIMIT.perSecond)
    .addOption(connectionBudgetOption('handshakeTimeout'))
    .option('--drain-timeout <ms>', 'on SIGTERM/SIGINT, how long running episodes may go on before the server closes', nonNegativeInt('--drain-timeout'), SERVER_DRAIN_TIMEOUT_MS)
    .option('--allow-origin <origin>', 'a browser origin allowed to connect, e.g. https://lab.example (repeatable; * allows any)', collect, [])
    .option('--log-json', 'one JSON line on stderr per connection event (opened, refused, closed, limit hit)')
    // AgentGym HTTP only; --token, --allow-origin, --max-connections, --max-pending-*, --handshake-timeout, --drain-timeout and --log-json apply to it too.
    .option('--http-token <token>', 'another token the AgentGym HTTP port accepts besides --token (repeatable); each owns the instances it creates', collect, [])
    .option('--http-max-instances <n>', 'AgentGym HTTP: instances over all clients', positiveInt('--http-max-instances'), HTTP_MAX_INSTANCES)
    .option('--http-max-instances-per-client <n>', 'AgentGym HTTP: instances one client (a token, else a remote address) may hold', positiveInt('--http-max-instances-per-client'), HTTP_MAX_INSTANCES_PER_CLIENT)
    .option('--no-agentgym-compat', "AgentGym HTTP: use actorgym's episode rules instead of the original server's (BabyAI: any success ends the episode; see docs/agentgym-http.md#agentgym-compatibility)")
    .action(async (envId: string, options: ServeOptions) => (await import('./serve-action.ts')).runServe(envId, options));
}
