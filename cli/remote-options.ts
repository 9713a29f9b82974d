/**
 * `--remote` and the pool flags, shared by every command that runs episodes on env servers
 * (rollout, eval, train). `--remote` takes one URL or several, comma-separated: either way the
 * env runs on a reconnecting pool of servers (transport/remote/ws-pool.ts, docs/reliability.md).
 */
import type { Command } from 'commander';
import type { EnvDefinition } from '../envs/contract.ts';
import { RECONNECT_BACKOFF } from '../transport/remote/backoff.ts';
import type { PoolEvent } from '../transport/remote/ws-pool.ts';
import { SERVER_WAIT_MS } from '../transport/remote/pool-limits.ts';
import { nonNegativeInt } from './output.ts';

/** Retries of a slot aborted by a lost server, on top of --max-retries. */
export const DEFAULT_MAX_LOST_RETRIES = 10;

export interface RemoteFlags {
  remote?: string;
  serverWait: number;
  maxLostRetries: number;
}

/** Adds `--remote`, `--server-wait` and `--max-lost-retries` (the command keeps its own `--token`). */
export function addRemoteOptions(command: Command): Command {
  return command
    .option(
      '--remote <urls>',
      'run the env on `actorgym serve` servers: one URL or several, comma-separated (ws://a:8100,ws://b:8100), ' +
        "or on AgentGym's HTTP env servers (agentgym+http://host:36001, pools too; docs/agentgym-http.md); " +
        'each instance goes to the least-loaded live server, lost servers are reconnected ' +
        `(backoff ${RECONNECT_BACKOFF.initialMs} ms doubling to ${RECONNECT_BACKOFF.maxMs / 1000} s, with jitter) and used again`,
    )
    .option('--server-wait <ms>', 'with --remote: how long a new episode waits for a live server when none is connected, before it aborts (env_lost)', nonNegativeInt('--server-wait'), SERVER_WAIT_MS)
    .option('--max-lost-retries <n>', 'with --remote: further retries of an episode aborted because its server was lost, on another server, on top of --max-retries', nonNegativeInt('--max-lost-retries'), DEFAULT_MAX_LOST_RETRIES);
}

/** One stderr line per server that connects late, is lost, drains or cannot be reached. */
export function printPoolEvent(event: PoolEvent): void {
  const detail = event.detail ? ` (${event.detail})` : '';
  const what = {
    'server.connected': 'connected',
    'server.draining': 'draining; no new episodes go to it',
    'server.suspect': `suspect${detail}; no new episodes go to it until it answers a probe`,
    'server.recovered': 'answered its probe; used again',
    'server.lost': `lost${detail}; reconnecting`,
    'server.unreachable': `unreachable${detail}; retrying`,
  }[event.type];
  process.stderr.write(`env server ${event.url}: ${what} · ${event.live}/${event.servers} live\n`);
}

/** The env of a command: local, or on the `--remote` pool, whose calls (start-up ones too) take `--env-timeout`. */
export async function resolveCommandEnv(env: string, flags: RemoteFlags, token: string | undefined, envTimeoutMs?: number): Promise<EnvDefinition> {
  let started = false;
  const { resolveEnvDefinition } = await import('../transport/resolve-env.ts');
  const definition = resolveEnvDefinition({
    env,
    remote: flags.remote,
    token,
    envTimeoutMs,
    serverWaitMs: flags.serverWait,
    // The first connections are reported by the command's own errors; later changes here.
    onPoolEvent: (event) => {
      if (started || event.type !== 'server.connected') printPoolEvent(event);
    },
  });
  return definition.finally(() => (started = true));
}

/** Per-server counts of a pooled env (placed, connects, losses), for `--json` summaries; undefined for a local env. */
export function serverStats(env: EnvDefinition): unknown[] | undefined {
  const stats = (env as { stats?: () => unknown[] }).stats;
  return typeof stats === 'function' ? stats.call(env) : undefined;
}
