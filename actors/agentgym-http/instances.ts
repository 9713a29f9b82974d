/**
 * The server's env instances, keyed by AgentGym's integer id. Unlike AgentGym, the table is
 * bounded (`maxInstances`) and reaps instances idle for `idleTtlMs`: AgentGym-RL creates
 * clients every rollout and never closes them, which is how AgentGym's servers leak.
 */
import { EnvError, type Env } from '../../envs/contract.ts';

export interface Instance {
  readonly id: number;
  readonly env: Env;
  phase: 'created' | 'running' | 'done';
  /** What GET /observation serves; undefined before the first reset. */
  observation: string | undefined;
  /** Reward summed over the episode: AgentGym's `score` when the env has none. */
  reward: number;
  lastUsed: number;
  busy: boolean;
  closed: boolean;
}

export class InstanceTable {
  readonly #instances = new Map<number, Instance>();
  /** Removed while a call was in flight: closed when it finishes, or at shutdown. */
  readonly #draining = new Set<Instance>();
  #nextId = 0;
  #shutDown = false;
  readonly #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly make: () => Env,
    private readonly maxInstances: number,
    private readonly idleTtlMs: number,
  ) {
    if (Number.isFinite(idleTtlMs)) {
      // One coarse sweep instead of a timer per instance keeps the step path timer-free;
      // an idle instance lives between idleTtlMs and 1.25 × idleTtlMs.
      this.#sweeper = setInterval(() => this.#sweep(), Math.max(5, Math.min(idleTtlMs / 4, 30_000)));
      this.#sweeper.unref();
    }
  }

  get size(): number {
    return this.#instances.size;
  }

  create(): Instance {
    if (this.#shutDown) throw new EnvError('ENV_CLOSED', 'the server is shutting down');
    if (this.#instances.size >= this.maxInstances) {
      throw new EnvError(
        'ENV_INTERNAL',
        `instance limit reached (maxInstances=${this.maxInstances}): POST /close {"id"} instances you are done with; idle ones are closed after ${this.idleTtlMs} ms`,
      );
    }
    const instance: Instance = {
      id: this.#nextId++,
      env: this.make(),
      phase: 'created',
      observation: undefined,
      reward: 0,
      lastUsed: performance.now(),
      busy: false,
      closed: false,
    };
    this.#instances.set(instance.id, instance);
    return instance;
  }

  /** Takes an instance for one call; calls on one id are not interleaved. Pair with `release`. */
  acquire(id: number): Instance {
    const instance = this.#instances.get(id);
    if (!instance) {
      throw new EnvError('ENV_CLOSED', `The id ${id} is not valid: never created, closed, or idle longer than ${this.idleTtlMs} ms`);
    }
    if (instance.busy) throw new EnvError('PROTOCOL_ERROR', `instance ${id} is busy with another call; send one call at a time per id`);
    instance.busy = true;
    return instance;
  }

  release(instance: Instance): void {
    instance.busy = false;
    instance.lastUsed = performance.now();
    if (instance.closed && this.#draining.delete(instance)) closeEnv(instance);
  }

  peek(id: number): Instance | undefined {
    return this.#instances.get(id);
  }

  /** Forgets the instance now; its env closes once any call in flight on it has finished. */
  remove(id: number): boolean {
    const instance = this.#instances.get(id);
    if (!instance) return false;
    this.#instances.delete(id);
    instance.closed = true;
    if (instance.busy) this.#draining.add(instance);
    else closeEnv(instance);
    return true;
  }

  async closeAll(): Promise<void> {
    this.#shutDown = true;
    clearInterval(this.#sweeper);
    const all = [...this.#instances.values(), ...this.#draining];
    this.#instances.clear();
    this.#draining.clear();
    await Promise.allSettled(all.map((instance) => instance.env.close()));
  }

  #sweep(): void {
    const cutoff = performance.now() - this.idleTtlMs;
    for (const instance of this.#instances.values()) {
      if (!instance.busy && instance.lastUsed <= cutoff) this.remove(instance.id);
    }
  }
}

function closeEnv(instance: Instance): void {
  instance.env.close().catch(() => undefined);
}
