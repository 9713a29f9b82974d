/**
 * An `Env` on top of AgentGym's env-server HTTP protocol (`/create`, `/reset`, `/step`,
 * `/close`), so actorgym can drive AgentGym's Python env servers and actorgym's own
 * `startAgentGymHttpServer`. See docs/agentgym-http.md.
 *
 * One `Env` = one server instance id, created lazily on the first `reset`. Every call has a
 * deadline (`ENV_TIMEOUT`; AgentGym hard-codes 2400 s); a refused or reset connection is
 * `ENV_LOST`; a `{"error": ...}` reply becomes an `EnvError` whose code comes from the reply's
 * `code` field (actorgym servers) or from AgentGym's message wording (Python servers).
 *
 * Each family's rewards are normalised to 0…1 per episode with the server's numbers kept in
 * `info` (agentgym-flavors.ts), and `info.availableActions` is filled from what the family offers:
 * the observation, `GET /action_hint`, or WebShop's `GET /available_actions`
 * (agentgym-valid-actions.ts).
 *
 * AgentGym resets by an integer `data_idx`, actorgym by task id: `options.taskIndex` maps one
 * to the other. The default takes the id's trailing integer (`babyai_17` → 17), which matches
 * AgentGym's `item_id` rows and the ids `agentGymHttpDefinition` derives. Against an actorgym
 * server, `agentGymTaskOrder(definition).dataIdxOf` is the exact inverse of its mapping.
 */
import { EnvError, type Env, type EnvDefinition, type EnvSpec, type ResetOptions, type ResetResult, type Split, type StepResult } from '../../envs/contract.ts';
import { acquireTarget, call, releaseTarget, type Target } from './agentgym-http-call.ts';
import { AGENTGYM_FLAVORS, createdId, idField, parseReset, parseStep, resetBody, type AgentGymFlavor, type EpisodeMemory, type Reply } from './agentgym-flavors.ts';
import { actionsFromHint, listedActions, webshopActions } from './agentgym-valid-actions.ts';

export { AGENT_MAX_SOCKETS } from './agentgym-http-call.ts';
export type { AgentGymFlavor } from './agentgym-flavors.ts';

/** Per-call deadline when `callTimeoutMs` is not set. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/**
 * Options of `createAgentGymHttpEnv`: the env's spec, the server's field names (`flavor`), how a
 * task id maps to AgentGym's `data_idx`, and the call deadline.
 */
export interface AgentGymHttpEnvOptions {
  readonly spec: EnvSpec;
  /** Default: `spec.id` when it names a known flavor, else `generic`. */
  readonly flavor?: AgentGymFlavor;
  /** Task id → AgentGym `data_idx`. Default: `trailingIntegerTaskIndex`. */
  readonly taskIndex?: (taskId: string) => number;
  /** Deadline of every HTTP call in ms. Default `DEFAULT_CALL_TIMEOUT_MS` (30 s). */
  readonly callTimeoutMs?: number;
  /**
   * Ask `GET /action_hint` for the valid actions when the observation lists none (AgentGym's
   * SciWorld server and actorgym's servers answer it). Default: true for `sciworld`. A server
   * that answers 404 is not asked again.
   */
  readonly actionHint?: boolean;
  /**
   * Sent as `Authorization: Bearer <token>` on every call, for an actorgym server started with
   * `--token` (a `/token/T` base-URL prefix works too). AgentGym's own servers ignore it.
   */
  readonly token?: string;
}

// ---------------------------------------------------------------- data_idx mapping

/** actorgym's data_idx order: the env's own AgentGym mapping, else its test tasks, then its train tasks. */
export interface AgentGymTaskOrder {
  readonly size: number;
  taskIdAt(dataIdx: number): string | undefined;
  dataIdxOf(taskId: string): number | undefined;
}

export function agentGymTaskOrder(definition: Pick<EnvDefinition, 'tasks' | 'agentgymIndex'>): AgentGymTaskOrder {
  if (definition.agentgymIndex) return definition.agentgymIndex;
  const ids = [...definition.tasks('test'), ...definition.tasks('train')];
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  return { size: ids.length, taskIdAt: (i) => ids[i], dataIdxOf: (id) => index.get(id) };
}

/** `babyai_17` → 17; an id without a trailing integer is `TASK_UNKNOWN`. */
export function trailingIntegerTaskIndex(taskId: string): number {
  const match = /(\d+)$/.exec(taskId);
  if (!match) {
    throw new EnvError('TASK_UNKNOWN', `task id "${taskId}" has no trailing integer to send as data_idx; pass options.taskIndex`);
  }
  return Number(match[1]);
}

// ---------------------------------------------------------------- the Env

function defaultFlavor(spec: EnvSpec): AgentGymFlavor {
  return (AGENTGYM_FLAVORS as readonly string[]).includes(spec.id) ? (spec.id as AgentGymFlavor) : 'generic';
}

function withActions<T extends ResetResult | StepResult>(result: T, actions: readonly string[]): T {
  return { ...result, info: { ...result.info, availableActions: actions } };
}

class AgentGymHttpEnv implements Env {
  #id: number | undefined;
  #reset = false;
  #closed = false;
  /** Whether to ask `GET /action_hint`; turned off for good when the server has no such route. */
  #hint: boolean;
  readonly #memory: EpisodeMemory = { score: 0, actions: undefined };
  readonly #flavor: AgentGymFlavor;
  readonly #taskIndex: (taskId: string) => number;
  readonly #timeoutMs: number;

  constructor(
    readonly spec: EnvSpec,
    private readonly target: Target,
    options: AgentGymHttpEnvOptions,
  ) {
    this.#flavor = options.flavor ?? defaultFlavor(spec);
    this.#taskIndex = options.taskIndex ?? trailingIntegerTaskIndex;
    this.#timeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.#hint = options.actionHint ?? this.#flavor === 'sciworld';
  }

  #post(path: string, body: object): Promise<unknown> {
    return call(this.target, 'POST', path, JSON.stringify(body), performance.now() + this.#timeoutMs);
  }

  #get(path: string, id: number): Promise<unknown> {
    return call(this.target, 'GET', `${path}?${idField(this.#flavor)}=${id}`, undefined, performance.now() + this.#timeoutMs);
  }

  async #postObject(path: string, body: object): Promise<Reply> {
    const value = await this.#post(path, body);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Reply;
    throw new EnvError('PROTOCOL_ERROR', `POST ${path}: expected a JSON object, got ${JSON.stringify(value)}`);
  }

  async #create(): Promise<number> {
    this.#id = createdId(await this.#post('/create', {}));
    return this.#id;
  }

  async #resetOn(id: number, dataIdx: number, seed: number | undefined): Promise<ResetResult> {
    const body = resetBody(this.#flavor, id, dataIdx, seed);
    if (this.#flavor !== 'webshop') return parseReset(this.#flavor, await this.#postObject('/reset', body), this.#memory);
    // WebShop answers `[observation, null]`; its own client reads the observation apart.
    await this.#post('/reset', body);
    const observation = await this.#get('/observation', id);
    if (typeof observation !== 'string') throw new EnvError('PROTOCOL_ERROR', `GET /observation: expected a string, got ${JSON.stringify(observation)}`);
    return parseReset(this.#flavor, {}, this.#memory, observation);
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'reset after close');
    const dataIdx = this.#taskIndex(options.taskId);
    if (!Number.isInteger(dataIdx) || dataIdx < 0) throw new EnvError('TASK_UNKNOWN', `task "${options.taskId}" maps to data_idx ${dataIdx}, not a non-negative integer`);
    this.#reset = false;
    let result: ResetResult;
    try {
      result = await this.#resetOn(this.#id ?? (await this.#create()), dataIdx, options.seed);
    } catch (err) {
      // The server forgot the instance (idle TTL, restart): start over on a fresh one, once.
      if (!(err instanceof EnvError && err.code === 'ENV_CLOSED')) throw err;
      result = await this.#resetOn(await this.#create(), dataIdx, options.seed);
    }
    this.#reset = true;
    return this.#withValidActions(result, false);
  }

  async step(action: string): Promise<StepResult> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'step after close');
    if (this.#id === undefined || !this.#reset) throw new EnvError('ENV_NOT_RESET', 'step before reset');
    const result = parseStep(this.#flavor, await this.#postObject('/step', { [idField(this.#flavor)]: this.#id, action }), this.#memory);
    return this.#withValidActions(result, result.terminated || result.truncated);
  }

  /** The result with the actions the server offers apart from the observation (valid-actions module). */
  async #withValidActions<T extends ResetResult | StepResult>(result: T, done: boolean): Promise<T> {
    const id = this.#id;
    if (done || id === undefined || listedActions(result.observation) !== undefined) return result;
    if (this.#hint) {
      const hinted = await this.#get('/action_hint', id).then(actionsFromHint, (err: unknown) => {
        // A server without the route (404/405): never ask it again; other failures are the step's.
        if (err instanceof EnvError && err.code === 'PROTOCOL_ERROR' && /HTTP 40[45]/.test(err.message)) {
          this.#hint = false;
          return undefined;
        }
        throw err;
      });
      if (hinted !== undefined) return withActions(result, hinted);
    }
    if (this.#flavor === 'webshop') {
      const actions = webshopActions(await this.#get('/available_actions', id), result.observation);
      if (actions !== undefined) return withActions(result, actions);
    }
    return result;
  }

  /** Best effort: a server that is gone already lost the instance, and a live one reaps it by TTL. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#id !== undefined) await this.#post('/close', { [idField(this.#flavor)]: this.#id }).catch(() => undefined);
    } finally {
      releaseTarget(this.target);
    }
  }
}

/** An Env speaking AgentGym's HTTP protocol to the server at `baseUrl` (e.g. `http://127.0.0.1:36001`). */
export function createAgentGymHttpEnv(baseUrl: string, options: AgentGymHttpEnvOptions): Env {
  return new AgentGymHttpEnv(options.spec, acquireTarget(baseUrl, options.token), options);
}

/**
 * Options of `agentGymHttpDefinition`: those of one env, plus the task lists the server does not
 * report.
 */
export interface AgentGymHttpDefinitionOptions extends AgentGymHttpEnvOptions {
  /**
   * Task ids per split. Default: `${spec.id}_${n}` with test tasks numbered first, then train,
   * which is the data_idx order of actorgym's server and fits the default `taskIndex`.
   */
  readonly tasks?: Readonly<Record<'train' | 'test', readonly string[]>> & { readonly 'test-templates'?: readonly string[] };
}

/** A registry definition whose instances are remote AgentGym HTTP envs. It has no oracle. */
export function agentGymHttpDefinition(baseUrl: string, options: AgentGymHttpDefinitionOptions): EnvDefinition {
  const { spec } = options;
  const tasks = options.tasks ?? {
    test: Array.from({ length: spec.splits.test }, (_, i) => `${spec.id}_${i}`),
    train: Array.from({ length: spec.splits.train }, (_, i) => `${spec.id}_${spec.splits.test + i}`),
  };
  return { spec, tasks: (split) => tasks[split] ?? [], make: () => createAgentGymHttpEnv(baseUrl, options) };
}
