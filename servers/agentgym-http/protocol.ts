/**
 * AgentGym's env-server routes over an `InstanceTable`: create, reset, step, observation and
 * close, each on behalf of a `Caller` whose instances are the only ones it can see. Field names
 * come from the adapter; data_idx → task from `agentGymTaskOrder`.
 */
import type { IncomingMessage } from 'node:http';
import { EnvError, type EnvDefinition, type JsonValue } from '../../envs/contract.ts';
import { agentGymTaskOrder } from '../../transport/remote/agentgym-http-env.ts';
import type { Caller } from './access.ts';
import type { Reply, ServerAdapter } from './adapters.ts';
import { BadRequest, intField, optionalIntField, readJsonBody, stringField, type Body } from './http-io.ts';
import type { Instance, InstanceTable } from './instances.ts';
import { errorMessage } from '../../envs/error-message.ts';

/** The 200 error body, as the server writes it for an error thrown by a route. */
function errorBody(err: unknown): Reply {
  return { error: errorMessage(err, { withCode: false }), code: err instanceof EnvError ? err.code : 'ENV_INTERNAL' };
}

export const KNOWN_ROUTES = ['/create', '/reset', '/step', '/close', '/observation', '/action_hint', '/'] as const;

export type Route = (req: IncomingMessage, path: string, caller: Caller) => Promise<JsonValue>;

const POST_ROUTES = ['/create', '/reset', '/step', '/close'] as const;
type PostRoute = (typeof POST_ROUTES)[number];

/** The routes as one function: `(request, path, caller) → reply`; a thrown error is the server's to answer. */
export function agentGymRoutes(definition: EnvDefinition, adapter: ServerAdapter, table: InstanceTable, maxBodyBytes: number): Route {
  const routes = new AgentGymRoutes(definition, adapter, table, maxBodyBytes);
  return (req, path, caller) => routes.dispatch(req, path, caller);
}

class AgentGymRoutes {
  readonly #order: ReturnType<typeof agentGymTaskOrder>;
  readonly #idField: string;
  readonly #indexField: string;

  constructor(
    private readonly definition: EnvDefinition,
    private readonly adapter: ServerAdapter,
    private readonly table: InstanceTable,
    private readonly maxBodyBytes: number,
  ) {
    this.#order = agentGymTaskOrder(definition);
    this.#idField = adapter.idField;
    this.#indexField = adapter.indexField ?? 'data_idx';
  }

  async dispatch(req: IncomingMessage, path: string, caller: Caller): Promise<JsonValue> {
    if (req.method === 'GET') {
      if (path === '/observation') return this.observation(caller, req.url ?? '');
      if (path === '/action_hint') return this.actionHint(caller, req.url ?? '');
      if (path === '/') return `This is environment ${this.definition.spec.id} (actorgym, AgentGym HTTP protocol).`;
    } else if (req.method === 'POST' && (POST_ROUTES as readonly string[]).includes(path)) {
      return this.post(path as PostRoute, caller, await readJsonBody(req, this.maxBodyBytes));
    }
    if ((KNOWN_ROUTES as readonly string[]).includes(path)) throw new BadRequest(405, `method ${req.method ?? '?'} not allowed on ${path}`);
    throw new BadRequest(404, `no route ${req.method ?? '?'} ${path}; routes: POST /create /reset /step /close, GET /observation?${this.#idField}=N /action_hint?${this.#idField}=N`);
  }

  private post(path: PostRoute, caller: Caller, body: Body): Promise<JsonValue> | JsonValue {
    const idField = this.#idField;
    switch (path) {
      case '/step':
        return this.step(caller, intField(body, idField), stringField(body, 'action'));
      case '/reset': {
        const running = this.reset(caller, intField(body, idField), intField(body, this.#indexField), optionalIntField(body, 'seed'));
        const failure = this.adapter.resetFailure;
        return failure ? running.catch((err: unknown) => failure(errorBody(err))) : running;
      }
      case '/create':
        return this.create(caller, body);
      case '/close':
        return this.table.remove(intField(body, idField), caller.owner);
    }
  }

  private async reset(caller: Caller, id: number, dataIdx: number, seed: number | undefined): Promise<JsonValue> {
    const taskId = this.#order.taskIdAt(dataIdx);
    if (taskId === undefined) {
      const orderName = this.definition.agentgymIndex ? `${this.definition.spec.id}'s AgentGym mapping` : 'test tasks first, then train';
      throw new EnvError('TASK_UNKNOWN', `data_idx ${dataIdx} out of range 0..${this.#order.size - 1} (${orderName})`);
    }
    const instance = this.table.acquire(id, caller.owner);
    try {
      instance.phase = 'created';
      const result = await instance.env.reset(seed === undefined ? { taskId } : { taskId, seed });
      instance.observation = this.adapter.observation(result);
      instance.actions = result.info.availableActions;
      instance.reward = 0;
      instance.phase = 'running';
      return this.adapter.resetReply(id, instance.observation, result);
    } finally {
      this.table.release(instance);
    }
  }

  private async step(caller: Caller, id: number, action: string): Promise<Reply> {
    const { adapter } = this;
    const instance = this.table.acquire(id, caller.owner);
    try {
      if (instance.phase === 'created') throw new EnvError('ENV_NOT_RESET', `instance ${id} has not been reset: POST /reset {"${this.#idField}": ${id}, "${this.#indexField}": N} first`);
      if (instance.phase === 'done') throw new EnvError('ENV_NOT_RESET', `The task with environment ${id} has finished: POST /reset to start another`);
      const result = await instance.env.step(adapter.stepAction ? adapter.stepAction(action) : action);
      instance.reward += result.reward;
      instance.observation = adapter.observation(result);
      instance.actions = result.info.availableActions;
      if (result.terminated || result.truncated) instance.phase = 'done';
      const score = typeof result.info.score === 'number' ? result.info.score : instance.reward;
      return adapter.stepReply(instance.observation, result, score);
    } finally {
      this.table.release(instance);
    }
  }

  private async create(caller: Caller, body: Body): Promise<JsonValue> {
    const { adapter } = this;
    const unsupported = adapter.checkCreate(body);
    if (unsupported !== undefined) throw new EnvError('PROTOCOL_ERROR', unsupported);
    const instance = this.table.create(caller);
    if (!adapter.resetOnCreate) return { [this.#idField]: instance.id };
    try {
      const index = adapter.indexField !== undefined ? (optionalIntField(body, adapter.indexField) ?? 0) : 0;
      const reply = await this.reset(caller, instance.id, index, undefined);
      return adapter.createReply ? adapter.createReply(instance.id, reply) : reply;
    } catch (err) {
      this.table.remove(instance.id, caller.owner);
      throw err;
    }
  }

  private observation(caller: Caller, url: string): JsonValue {
    return this.queried(caller, url).observation as string;
  }

  /**
   * The env's valid actions now, as `{"valid_actions": [...]}` (empty once the episode is over or
   * when the env lists none). AgentGym's SciWorld server answers this route with ScienceWorld's
   * templates and objects instead; actorgym's client reads either (docs/agentgym-http.md).
   */
  private actionHint(caller: Caller, url: string): JsonValue {
    const instance = this.queried(caller, url);
    return { valid_actions: instance.phase === 'done' ? [] : [...(instance.actions ?? [])] };
  }

  /** The caller's reset instance named by the query's id field. */
  private queried(caller: Caller, url: string): Instance {
    const idField = this.#idField;
    const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    const raw = query.get(idField);
    if (raw === null || !/^\d+$/.test(raw)) throw new BadRequest(400, `query parameter "${idField}" must be an integer, got ${JSON.stringify(raw)}`);
    const instance = this.table.peek(Number(raw), caller.owner);
    if (!instance) throw new EnvError('ENV_CLOSED', `The id ${raw} is not valid.`);
    if (instance.observation === undefined) throw new EnvError('ENV_NOT_RESET', `instance ${raw} has not been reset`);
    instance.lastUsed = performance.now();
    return instance;
  }
}
