import type { EnvDefinition } from '../../envs/contract.ts';
import type { ServerStats } from './server-link.ts';
import { PooledEnv } from './pooled-env.ts';
import { EnvServerPool, type EnvServerPoolOptions } from './ws-pool.ts';

/** What a training run needs to pause instead of training on a batch cut short by lost servers. */
export interface EnvReachability {
  /** True while at least one env server is connected. */
  isReachable(): boolean;
  /** Resolves once a server is connected (at once if one is); rejects when `signal` aborts. */
  whenReachable(signal?: AbortSignal): Promise<void>;
  /** Each server's state and last error, for messages. */
  describeServers(): string;
}

/**
 * An env definition served by a pool of env servers; `close()` closes every connection of the
 * pool.
 */
export interface PoolEnvDefinition extends EnvDefinition, EnvReachability {
  readonly pool: EnvServerPool;
  /** Per-server counts: instances placed, connects, losses, current load. */
  stats(): ServerStats[];
  close(): Promise<void>;
}

/**
 * A served env as an `EnvDefinition` over a pool of env servers (ws-pool.ts): what
 * `--remote ws://a:8100,ws://b:8100` resolves to (one URL is a pool of one, so it reconnects
 * too). The task lists are read once, from the first server that answers; every server must
 * describe the env the same way, or it is not used.
 */
export async function poolEnvDefinition(urls: readonly string[], envId: string, options: EnvServerPoolOptions = {}): Promise<PoolEnvDefinition> {
  const pool = await EnvServerPool.open(urls, envId, options);
  try {
    const connection = pool.anyConnection();
    const { spec, hasOracle } = pool.info;
    // The held-out-template split only where the served env declares it (older servers do not know the name).
    const [train, test, templates] = await Promise.all([
      connection.tasks(envId, 'train'), connection.tasks(envId, 'test'),
      spec.splits['test-templates'] ? connection.tasks(envId, 'test-templates') : [],
    ]);
    const definition: PoolEnvDefinition = {
      spec,
      pool,
      tasks: (split) => (split === 'train' ? train : split === 'test' ? test : templates),
      make: () => new PooledEnv(spec, envId, pool),
      isReachable: () => pool.reachable,
      whenReachable: (signal) => pool.whenReachable(signal),
      describeServers: () => pool.describeServers(),
      stats: () => pool.stats(),
      close: () => pool.close(),
    };
    if (!hasOracle) return definition;
    return { ...definition, oracle: (env) => ({ next: () => (env as PooledEnv).oracleAction() }) };
  } catch (error) {
    await pool.close();
    throw error;
  }
}

/** The reachability of a pooled env definition; undefined for envs that are always there (local ones). */
export function envReachability(env: EnvDefinition): EnvReachability | undefined {
  const candidate = env as Partial<EnvReachability>;
  return typeof candidate.whenReachable === 'function' && typeof candidate.describeServers === 'function' ? (candidate as EnvReachability) : undefined;
}
