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
 * AgentGym resets by an integer `data_idx`, actorgym by task id: `options.taskIndex` maps one
 * to the other. The default takes the id's trailing integer (`babyai_17` → 17), which matches
 * AgentGym's `item_id` rows and the ids `agentGymHttpDefinition` derives. Against an actorgym
 * server, `agentGymTaskOrder(definition).dataIdxOf` is the exact inverse of its mapping.
 */
import http from 'node:http';
import {
  EnvError,
  type Env,
  type EnvDefinition,
  type EnvErrorCode,
  type EnvSpec,
  type ResetOptions,
  type ResetResult,
  type Split,
  type StepInfo,
  type StepResult,
} from '../../envs/contract.ts';

/** Per-call deadline when `callTimeoutMs` is not set. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Sockets per server: 64 concurrent episodes keep at most one call each in flight, plus headroom. */
export const AGENT_MAX_SOCKETS = 128;

/** Field names per env family (reference §2). BabyAI's shape is the generic one. */
export type AgentGymFlavor = 'generic' | 'babyai' | 'textcraft' | 'sciworld';

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

// ---------------------------------------------------------------- HTTP plumbing

interface Target {
  readonly key: string;
  readonly hostname: string;
  readonly port: number;
  readonly prefix: string;
  readonly agent: http.Agent;
}

// One keep-alive agent per server, shared by its Envs and destroyed when the last one closes,
// so closed Envs leave no sockets behind.
const agents = new Map<string, { agent: http.Agent; refs: number }>();

function acquireTarget(baseUrl: string): Target {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') throw new EnvError('PROTOCOL_ERROR', `AgentGym HTTP client supports http: URLs only, got ${baseUrl}`);
  const key = url.host;
  let pooled = agents.get(key);
  if (!pooled) {
    pooled = { agent: new http.Agent({ keepAlive: true, maxSockets: AGENT_MAX_SOCKETS, maxFreeSockets: AGENT_MAX_SOCKETS }), refs: 0 };
    agents.set(key, pooled);
  }
  pooled.refs += 1;
  const port = url.port === '' ? 80 : Number(url.port);
  return { key, hostname: url.hostname, port, prefix: url.pathname.replace(/\/+$/, ''), agent: pooled.agent };
}

function releaseTarget(target: Target): void {
  const pooled = agents.get(target.key);
  if (!pooled || pooled.agent !== target.agent) return;
  pooled.refs -= 1;
  if (pooled.refs <= 0) {
    agents.delete(target.key);
    pooled.agent.destroy();
  }
}

const KNOWN_CODES = new Set<string>([
  'ENV_UNKNOWN', 'ENV_NOT_RESET', 'ENV_CLOSED', 'TASK_UNKNOWN', 'ENV_LOST', 'ENV_TIMEOUT', 'PROTOCOL_ERROR', 'ENV_INTERNAL',
]);

/** The code of an `{"error"}` reply: its own `code`, else guessed from AgentGym's wording. */
function errorCode(reply: Record<string, unknown>, message: string): EnvErrorCode {
  if (typeof reply['code'] === 'string' && KNOWN_CODES.has(reply['code'])) return reply['code'] as EnvErrorCode;
  if (/is not valid|has been deleted/.test(message)) return 'ENV_CLOSED';
  if (/has finished/.test(message)) return 'ENV_NOT_RESET';
  return 'ENV_INTERNAL';
}

function interpret(status: number, text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (status === 200) throw new EnvError('PROTOCOL_ERROR', `${what}: reply is not JSON: ${text.slice(0, 200)}`);
  }
  const obj = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  const message = obj && typeof obj['error'] === 'string' ? obj['error'] : undefined;
  if (status === 200) {
    if (obj && message !== undefined) throw new EnvError(errorCode(obj, message), `${what}: ${message}`);
    return value;
  }
  const detail = message ?? (obj ? JSON.stringify(obj) : text).slice(0, 300);
  throw new EnvError(status >= 500 ? 'ENV_INTERNAL' : 'PROTOCOL_ERROR', `${what}: HTTP ${status}: ${detail}`);
}

function call(target: Target, method: 'GET' | 'POST', path: string, body: string | undefined, deadline: number, retry = true): Promise<unknown> {
  const what = `${method} ${path}`;
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const req = http.request({ agent: target.agent, hostname: target.hostname, port: target.port, method, path: target.prefix + path, headers });
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    const lost = (err: NodeJS.ErrnoException): void => {
      if (settle()) reject(new EnvError('ENV_LOST', `${what}: connection to ${target.key} failed: ${err.code ?? err.message}`));
    };
    const timer = setTimeout(() => {
      if (settle()) reject(new EnvError('ENV_TIMEOUT', `${what}: no reply from ${target.key} within the call deadline`));
      req.destroy();
    }, Math.max(0, deadline - performance.now()));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', lost);
      res.on('close', () => {
        if (!res.complete) return lost(Object.assign(new Error('connection closed mid-reply'), { code: 'ECONNRESET' }));
        if (!settle()) return;
        try {
          resolve(interpret(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), what));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed while idle: the request never reached it (Node's
      // documented `reusedSocket` pattern), so one retry on a fresh socket is safe.
      if (retry && req.reusedSocket && err.code === 'ECONNRESET' && settle()) {
        call(target, method, path, body, deadline, false).then(resolve, reject);
        return;
      }
      lost(err);
    });
    req.end(body);
  });
}

// ---------------------------------------------------------------- flavors

type Reply = Record<string, unknown>;

function field<T extends 'string' | 'number' | 'boolean'>(reply: Reply, name: string, type: T, what: string) {
  const value = reply[name];
  if (typeof value !== type) throw new EnvError('PROTOCOL_ERROR', `${what}: reply field "${name}" should be a ${type}, got ${JSON.stringify(value)}`);
  return value as T extends 'string' ? string : T extends 'number' ? number : boolean;
}

const ACTIONS_MARK = 'Available actions: [';

/** Reads BabyAI's trailing `Available actions: ["a", "b"]` into `availableActions`. */
function parseActions(observation: string): readonly string[] | undefined {
  const at = observation.lastIndexOf(ACTIONS_MARK);
  if (at < 0) return undefined;
  const end = observation.indexOf(']', at);
  try {
    const list: unknown = JSON.parse(observation.slice(at + ACTIONS_MARK.length - 1, end + 1));
    return Array.isArray(list) && list.every((a) => typeof a === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}

function observationInfo(observation: string, extra: Record<string, number | string | boolean | undefined>): StepInfo {
  const info: Record<string, number | string | boolean | readonly string[]> = {};
  const actions = parseActions(observation);
  if (actions) info['availableActions'] = actions;
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) info[key] = value;
  return info as StepInfo;
}

function parseStep(flavor: AgentGymFlavor, reply: Reply): StepResult {
  const observation = field(reply, 'observation', 'string', 'step');
  const reward = field(reply, 'reward', 'number', 'step');
  const done = field(reply, 'done', 'boolean', 'step');
  const truncated = done && reply['truncated'] === true;
  const score = flavor === 'sciworld' ? field(reply, 'score', 'number', 'step') : undefined;
  // actorgym servers say `success`; AgentGym's do not: BabyAI/TextCraft reward > 0 at done,
  // SciWorld a full score.
  const success = typeof reply['success'] === 'boolean' ? reply['success'] : score !== undefined ? score >= 100 : reward > 0;
  const info = observationInfo(observation, {
    score,
    invalidAction: reply['invalid_action'] === true ? true : undefined,
    success: done && !truncated ? success : undefined,
  });
  return { observation, reward, terminated: done && !truncated, truncated, info };
}

function parseReset(flavor: AgentGymFlavor, reply: Reply): ResetResult {
  const raw = field(reply, 'observation', 'string', 'reset');
  if (flavor !== 'sciworld') return { observation: raw, info: observationInfo(raw, {}) };
  // As AgentGym's SciWorld client does: the goal travels apart from the first view.
  const description = typeof reply['task_description'] === 'string' ? reply['task_description'] : '';
  const observation = description === '' ? raw : `${description}\n${raw}`;
  return {
    observation,
    info: observationInfo(observation, {
      score: typeof reply['score'] === 'number' ? reply['score'] : undefined,
      taskName: typeof reply['task_name'] === 'string' ? reply['task_name'] : undefined,
      variation: typeof reply['var_num'] === 'number' ? reply['var_num'] : undefined,
    }),
  };
}

function defaultFlavor(spec: EnvSpec): AgentGymFlavor {
  return spec.id === 'babyai' || spec.id === 'textcraft' || spec.id === 'sciworld' ? spec.id : 'generic';
}

// ---------------------------------------------------------------- the Env

class AgentGymHttpEnv implements Env {
  #id: number | undefined;
  #reset = false;
  #closed = false;
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
  }

  #post(path: string, body: object): Promise<Reply> {
    return call(this.target, 'POST', path, JSON.stringify(body), performance.now() + this.#timeoutMs).then((value) => {
      if (typeof value !== 'object' || value === null) throw new EnvError('PROTOCOL_ERROR', `POST ${path}: expected a JSON object, got ${JSON.stringify(value)}`);
      return value as Reply;
    });
  }

  async #create(): Promise<number> {
    const reply = await this.#post('/create', {});
    const id = reply['id'];
    if (typeof id !== 'number') throw new EnvError('PROTOCOL_ERROR', `POST /create: reply has no numeric "id": ${JSON.stringify(reply)}`);
    this.#id = id;
    return id;
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'reset after close');
    const dataIdx = this.#taskIndex(options.taskId);
    if (!Number.isInteger(dataIdx) || dataIdx < 0) throw new EnvError('TASK_UNKNOWN', `task "${options.taskId}" maps to data_idx ${dataIdx}, not a non-negative integer`);
    this.#reset = false;
    const send = (id: number) => this.#post('/reset', options.seed === undefined ? { id, data_idx: dataIdx } : { id, data_idx: dataIdx, seed: options.seed });
    let reply: Reply;
    try {
      reply = await send(this.#id ?? (await this.#create()));
    } catch (err) {
      // The server forgot the instance (idle TTL, restart): start over on a fresh one, once.
      if (!(err instanceof EnvError && err.code === 'ENV_CLOSED')) throw err;
      reply = await send(await this.#create());
    }
    const result = parseReset(this.#flavor, reply);
    this.#reset = true;
    return result;
  }

  async step(action: string): Promise<StepResult> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'step after close');
    if (this.#id === undefined || !this.#reset) throw new EnvError('ENV_NOT_RESET', 'step before reset');
    return parseStep(this.#flavor, await this.#post('/step', { id: this.#id, action }));
  }

  /** Best effort: a server that is gone already lost the instance, and a live one reaps it by TTL. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#id !== undefined) await this.#post('/close', { id: this.#id }).catch(() => undefined);
    } finally {
      releaseTarget(this.target);
    }
  }
}

/** An Env speaking AgentGym's HTTP protocol to the server at `baseUrl` (e.g. `http://127.0.0.1:36001`). */
export function createAgentGymHttpEnv(baseUrl: string, options: AgentGymHttpEnvOptions): Env {
  return new AgentGymHttpEnv(options.spec, acquireTarget(baseUrl), options);
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
