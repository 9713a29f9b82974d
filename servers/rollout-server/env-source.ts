/**
 * The envs batches run on: the local registry's, or (with `remote`) the same env on a pool of env
 * servers. A pool is opened on the first batch that names its env and kept for the service's life,
 * so batches share its connections (each instance still goes to the least-loaded live server, and
 * a lost server is reconnected: transport/remote/ws-pool.ts); `close()` closes them all.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import { closeEnvDefinition } from './close-env.ts';
import { resolveEnvDefinition } from '../../transport/resolve-env.ts';
import { RequestError } from './request-error.ts';

export interface EnvSourceOptions {
  /** `ws://a:8100,ws://b:8100`: env servers; absent = in-process envs. */
  readonly remote?: string | undefined;
  readonly token?: string | undefined;
  /** Deadline of each env call (ms). */
  readonly envTimeoutMs?: number | undefined;
}

export class EnvSource {
  readonly #opened = new Map<string, Promise<EnvDefinition>>();

  constructor(private readonly options: EnvSourceOptions) {}

  /** The env of `id`; an unknown env is a 400 naming it, unreachable env servers a 503. */
  async get(id: string): Promise<EnvDefinition> {
    let opening = this.#opened.get(id);
    if (opening === undefined) {
      opening = resolveEnvDefinition({ env: id, remote: this.options.remote, token: this.options.token, envTimeoutMs: this.options.envTimeoutMs });
      this.#opened.set(id, opening);
      // A failed open is not kept: the next batch tries again (the servers may be back).
      opening.catch(() => this.#opened.delete(id));
    }
    try {
      return await opening;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/unknown env|ENV_UNKNOWN/i.test(message)) return Promise.reject(new RequestError(400, `env: ${message}`, 'env'));
      throw new RequestError(503, `env "${id}": the env servers cannot be reached: ${message}`);
    }
  }

  /** Closes every pool's connections. */
  async close(): Promise<void> {
    const opened = [...this.#opened.values()];
    this.#opened.clear();
    await Promise.all(opened.map((p) => p.then(closeEnvDefinition, () => undefined)));
  }
}
