/**
 * One AgentGym HTTP env server as a pool connection (the `EnvServerConnection` of ws-client.ts),
 * so `--remote agentgym+http://a,agentgym+http://b` runs on the same pool as ws:// servers
 * (ws-pool.ts: least-loaded placement, reconnect with backoff, failover of lost servers).
 *
 * HTTP keeps no connection to lose, so "connected" means the server answered `GET /`, and "lost"
 * means one of its envs' calls could not reach it (ENV_LOST: refused, reset); the pool then
 * probes `GET /` again with backoff until it answers. A timeout is not a loss (a slow step).
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type Split, type StepResult } from '../../envs/contract.ts';
import { acquireTarget, call, releaseTarget } from './agentgym-http-call.ts';
import { createAgentGymHttpEnv, DEFAULT_CALL_TIMEOUT_MS, type AgentGymHttpEnvOptions } from './agentgym-http-env.ts';
import type { EnvServerConnection, RemoteEnvInfo } from './ws-client.ts';

/** What every server of a pool serves: the env's spec, task ids, and how its envs are made. */
export interface AgentGymServed {
  readonly spec: EnvSpec;
  /** Task ids per split (`<env>_<data_idx>`); read by `tasks()`. Filled once the first server answered. */
  tasks?: Readonly<Record<Split, readonly string[]>>;
  /** Env options of every instance (flavor, data_idx mapping, deadline); `actionHint` is decided per server. */
  readonly envOptions: Omit<AgentGymHttpEnvOptions, 'spec' | 'actionHint'>;
}

/** A server's answer to `GET /`: actorgym's servers say so, which tells the client they answer `/action_hint`. */
export function isActorgymBanner(banner: unknown): boolean {
  return typeof banner === 'string' && banner.includes('(actorgym, AgentGym HTTP protocol)');
}

/** Probes `GET /` (ENV_LOST when the server cannot be reached) and returns the connection. */
export async function connectAgentGymServer(url: string, served: AgentGymServed): Promise<AgentGymHttpConnection> {
  const timeout = served.envOptions.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const target = acquireTarget(url, served.envOptions.token);
  let banner: unknown;
  try {
    banner = await call(target, 'GET', '/', undefined, performance.now() + timeout);
  } catch (error) {
    if (error instanceof EnvError && error.code === 'PROTOCOL_ERROR' && /HTTP 401/.test(error.message)) {
      const which = served.envOptions.token ? 'refused the token given (HTTP 401); check --token (or ACTORGYM_TOKEN)' : 'refused the request (HTTP 401); give its token with --token (or ACTORGYM_TOKEN, or in the URL as /token/T)';
      throw new EnvError('PROTOCOL_ERROR', `UNAUTHORIZED: ${url} ${which}`);
    }
    throw error;
  } finally {
    releaseTarget(target);
  }
  return new AgentGymHttpConnection(url, served, banner);
}

export class AgentGymHttpConnection implements EnvServerConnection {
  #closed = false;
  readonly #listeners: Array<(error: EnvError) => void> = [];

  constructor(
    readonly url: string,
    private readonly served: AgentGymServed,
    /** The server's `GET /` answer. */
    readonly banner: unknown,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  /** True for actorgym's own server (`actorgym serve --agentgym-http`). */
  get isActorgym(): boolean {
    return isActorgymBanner(this.banner);
  }

  onLost(listener: (error: EnvError) => void): void {
    this.#listeners.push(listener);
  }

  describe(_envId: string): Promise<RemoteEnvInfo> {
    return Promise.resolve({ spec: this.served.spec, hasOracle: false });
  }

  spec(_envId: string): Promise<EnvSpec> {
    return Promise.resolve(this.served.spec);
  }

  tasks(_envId: string, split: Split): Promise<readonly string[]> {
    const tasks = this.served.tasks;
    if (tasks === undefined) return Promise.reject(new EnvError('ENV_INTERNAL', 'the AgentGym task lists are not known yet'));
    return Promise.resolve(tasks[split]);
  }

  makeEnv(_envId: string): Env {
    // actorgym's servers list every env's valid actions at /action_hint; AgentGym's only SciWorld.
    const env = createAgentGymHttpEnv(this.url, { ...this.served.envOptions, spec: this.served.spec, ...(this.isActorgym ? { actionHint: true } : {}) });
    return new WatchedEnv(env, (error) => this.lose(error));
  }

  oracle(_env: Env): Promise<string> {
    return Promise.reject(new EnvError('PROTOCOL_ERROR', 'AgentGym HTTP servers have no oracle'));
  }

  /** Instances are closed by their envs (PooledEnv closes each before it moves); nothing else is open. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  private lose(error: EnvError): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#listeners.splice(0)) listener(error);
  }
}

/** An env whose unreachable-server errors (ENV_LOST) mark its connection lost. */
class WatchedEnv implements Env {
  constructor(
    private readonly env: Env,
    private readonly lost: (error: EnvError) => void,
  ) {}

  get spec(): EnvSpec {
    return this.env.spec;
  }

  reset(options: ResetOptions): Promise<ResetResult> {
    return this.watch(this.env.reset(options));
  }

  step(action: string): Promise<StepResult> {
    return this.watch(this.env.step(action));
  }

  close(): Promise<void> {
    return this.env.close();
  }

  private watch<T>(pending: Promise<T>): Promise<T> {
    return pending.catch((error: unknown) => {
      if (error instanceof EnvError && error.code === 'ENV_LOST') this.lost(error);
      throw error;
    });
  }
}
