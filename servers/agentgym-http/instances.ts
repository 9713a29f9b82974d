/**
 * The server's env instances, keyed by AgentGym's integer id. Unlike AgentGym, the table is
 * bounded (`maxInstances` in all, `maxPerClient` per caller) and reaps instances idle for
 * `idleTtlMs`: AgentGym-RL closes its clients at the end of each batch, but a rollout that dies
 * first leaves them behind, and AgentGym's servers never reap them.
 *
 * Ownership: an instance records its creator's `owner` (a token hash) and answers only to it;
 * to anyone else its id looks exactly like one that never existed, so ids cannot be probed.
 * With `ids: 'random'` (servers with a token) ids are also unguessable 48-bit integers, which
 * keeps apart clients that share one token. Without a token owners are all undefined and ids
 * count from 0, as AgentGym's.
 */
import { randomInt } from 'node:crypto';
import { EnvError, type Env } from '../../envs/contract.ts';
import type { Caller } from './access.ts';

export interface Instance {
  readonly id: number;
  readonly env: Env;
  readonly owner: string | undefined;
  readonly client: string;
  phase: 'created' | 'running' | 'done';
  /** What GET /observation serves; undefined before the first reset. */
  observation: string | undefined;
  /** What GET /action_hint serves: the env's `info.availableActions` after the last reset or step. */
  actions: readonly string[] | undefined;
  /** Reward summed over the episode: AgentGym's `score` when the env has none. */
  reward: number;
  lastUsed: number;
  busy: boolean;
  closed: boolean;
}

export type InstanceEvent =
  | { readonly type: 'instance.created'; readonly id: number; readonly client: string }
  | { readonly type: 'instance.closed'; readonly id: number; readonly client: string; readonly reason: 'client' | 'idle' | 'shutdown' }
  | { readonly type: 'instance.refused'; readonly client: string; readonly reason: 'server-limit' | 'client-limit' };

export interface InstanceTableOptions {
  readonly make: () => Env;
  readonly maxInstances: number;
  readonly maxPerClient: number;
  readonly idleTtlMs: number;
  readonly ids: 'sequential' | 'random';
  /** Told of every instance event, with the number of instances open right after it. */
  readonly onEvent?: (event: InstanceEvent, instances: number) => void;
}

/** Below 2^53, so every id is exact in JavaScript and in JSON. */
const RANDOM_ID_LIMIT = 2 ** 48;

export class InstanceTable {
  readonly #instances = new Map<number, Instance>();
  /** Removed while a call was in flight: closed when it finishes, or at shutdown. */
  readonly #draining = new Set<Instance>();
  readonly #perClient = new Map<string, number>();
  #nextId = 0;
  #shutDown = false;
  readonly #sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: InstanceTableOptions) {
    const { idleTtlMs } = options;
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

  get full(): boolean {
    return this.#instances.size >= this.options.maxInstances;
  }

  /** Instances `client` holds now. */
  heldBy(client: string): number {
    return this.#perClient.get(client) ?? 0;
  }

  create(caller: Caller): Instance {
    if (this.#shutDown) throw new EnvError('ENV_CLOSED', 'the server is shutting down');
    const { maxInstances, maxPerClient, idleTtlMs } = this.options;
    const idle = `idle ones are closed after ${idleTtlMs} ms`;
    if (this.full) {
      this.#emit({ type: 'instance.refused', client: caller.client, reason: 'server-limit' });
      throw new InstanceLimit(`instance limit reached (maxInstances=${maxInstances}): POST /close {"id"} instances you are done with; ${idle}`);
    }
    if (this.heldBy(caller.client) >= maxPerClient) {
      this.#emit({ type: 'instance.refused', client: caller.client, reason: 'client-limit' });
      throw new InstanceLimit(`instance limit of this client reached (maxInstancesPerClient=${maxPerClient}): POST /close {"id"} instances you are done with; ${idle}`);
    }
    const instance: Instance = {
      id: this.#newId(),
      env: this.options.make(),
      owner: caller.owner,
      client: caller.client,
      phase: 'created',
      observation: undefined,
      actions: undefined,
      reward: 0,
      lastUsed: performance.now(),
      busy: false,
      closed: false,
    };
    this.#instances.set(instance.id, instance);
    this.#perClient.set(caller.client, this.heldBy(caller.client) + 1);
    this.#emit({ type: 'instance.created', id: instance.id, client: caller.client });
    return instance;
  }

  /** Takes `owner`'s instance for one call; calls on one id are not interleaved. Pair with `release`. */
  acquire(id: number, owner: string | undefined): Instance {
    const instance = this.peek(id, owner);
    if (!instance) {
      throw new EnvError('ENV_CLOSED', `The id ${id} is not valid: never created, closed, idle longer than ${this.options.idleTtlMs} ms, or another client's`);
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

  /** `owner`'s instance `id`, else undefined (also when it is someone else's). */
  peek(id: number, owner: string | undefined): Instance | undefined {
    const instance = this.#instances.get(id);
    return instance && instance.owner === owner ? instance : undefined;
  }

  /** Forgets `owner`'s instance now; its env closes once any call in flight on it has finished. */
  remove(id: number, owner: string | undefined, reason: 'client' | 'idle' = 'client'): boolean {
    const instance = this.peek(id, owner);
    if (!instance) return false;
    this.#instances.delete(id);
    const held = this.heldBy(instance.client) - 1;
    if (held > 0) this.#perClient.set(instance.client, held);
    else this.#perClient.delete(instance.client);
    instance.closed = true;
    if (instance.busy) this.#draining.add(instance);
    else closeEnv(instance);
    this.#emit({ type: 'instance.closed', id, client: instance.client, reason });
    return true;
  }

  async closeAll(): Promise<void> {
    this.#shutDown = true;
    clearInterval(this.#sweeper);
    const all = [...this.#instances.values(), ...this.#draining];
    for (const instance of this.#instances.values()) this.#emit({ type: 'instance.closed', id: instance.id, client: instance.client, reason: 'shutdown' });
    this.#instances.clear();
    this.#draining.clear();
    this.#perClient.clear();
    await Promise.allSettled(all.map((instance) => instance.env.close()));
  }

  #emit(event: InstanceEvent): void {
    this.options.onEvent?.(event, this.size);
  }

  #newId(): number {
    if (this.options.ids === 'sequential') return this.#nextId++;
    let id: number;
    do id = randomInt(1, RANDOM_ID_LIMIT);
    while (this.#instances.has(id) || [...this.#draining].some((instance) => instance.id === id));
    return id;
  }

  #sweep(): void {
    const cutoff = performance.now() - this.options.idleTtlMs;
    for (const instance of this.#instances.values()) {
      if (!instance.busy && instance.lastUsed <= cutoff) this.remove(instance.id, instance.owner, 'idle');
    }
  }
}

/** `create` past `maxInstances` or the client's quota: a 200 `{"error", "code": "TOO_MANY_INSTANCES"}`. */
export class InstanceLimit extends Error {
  readonly code = 'TOO_MANY_INSTANCES';
}

function closeEnv(instance: Instance): void {
  instance.env.close().catch(() => undefined);
}
