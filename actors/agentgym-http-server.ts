/**
 * Serves an actorgym env over AgentGym's env-server HTTP protocol, so AgentGym-RL (Python,
 * verl on Ray) can train on actorgym's envs. Plain `node:http`, keep-alive on.
 *
 *   POST /create {}                      → {"id"}
 *   POST /reset  {"id", "data_idx"}      → {"observation", "reward", "score", "done", "deleted"}
 *   POST /step   {"id", "action"}        → {"observation", "reward", "score", "done"}
 *   GET  /observation?id=N               → "current observation"
 *   POST /close  {"id"}                  → true | false
 *
 * Shown is the generic (BabyAI) shape; TextCraft, SciWorld and SearchQA use their AgentGym field
 * names (./agentgym-http/adapters.ts, chosen by `definition.spec.id` or `options.adapter`).
 *
 * data_idx → task: index into the definition's test tasks, followed by its train tasks
 * (`agentGymTaskOrder` in envs/remote/agentgym-http-env.ts): with 90 test tasks, data_idx 0..89
 * are `tasks('test')` and 90.. are `tasks('train')`. Out of range is a `TASK_UNKNOWN` error.
 * An optional integer `seed` in the reset body is passed to `Env.reset`.
 *
 * Departures from AgentGym, on purpose:
 * - env errors are HTTP 200 `{"error", "code"}` as in AgentGym (plus an `EnvErrorCode`), but a
 *   body that is not JSON, misses a field or has a wrong type is a 400 `{"error"}` naming it;
 *   an oversized body is a 413; unknown routes 404, wrong methods 405;
 * - at most `maxInstances` instances (a clear error beyond), and instances idle longer than
 *   `idleTtlMs` are closed: AgentGym never reaps, and AgentGym-RL never calls /close;
 * - one call at a time per instance id; stepping before reset or after `done` is an error.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvError, type EnvDefinition, type JsonValue } from '../envs/contract.ts';
import { agentGymTaskOrder } from '../envs/remote/agentgym-http-env.ts';
import { adapterFor, type Reply } from './agentgym-http/adapters.ts';
import { BadRequest, intField, optionalIntField, readJsonBody, sendJson, stringField, type Body } from './agentgym-http/http-io.ts';
import { InstanceTable } from './agentgym-http/instances.ts';

/** Action strings are short; 64 KiB is generous and keeps a bad client from filling memory. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Enough for AgentGym-RL's never-closed clients of several rollout steps at 64-256 envs each. */
export const DEFAULT_MAX_INSTANCES = 4096;
/** 10 minutes: longer than any single LLM turn, short enough to stop a leak. */
export const DEFAULT_IDLE_TTL_MS = 10 * 60_000;
/** Idle keep-alive sockets stay open this long (Node's default, 5 s, is shorter than an LLM turn). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 60_000;

export interface AgentGymHttpServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1: no auth in this protocol, so listen publicly only on purpose. */
  readonly host?: string;
  readonly definition: EnvDefinition;
  readonly maxBodyBytes?: number;
  readonly maxInstances?: number;
  /** `Infinity` disables reaping. */
  readonly idleTtlMs?: number;
  /** Field-name flavor; default from `definition.spec.id`, else `generic`. */
  readonly adapter?: 'generic' | 'babyai' | 'textcraft' | 'sciworld' | 'search';
  readonly keepAliveTimeoutMs?: number;
}

export interface AgentGymHttpServer {
  readonly port: number;
  readonly url: string;
  /** Stops listening, drops connections and closes every instance. Idempotent. */
  close(): Promise<void>;
}

export async function startAgentGymHttpServer(options: AgentGymHttpServerOptions): Promise<AgentGymHttpServer> {
  const { definition } = options;
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const adapter = adapterFor(definition.spec.id, options.adapter);
  const order = agentGymTaskOrder(definition);
  const table = new InstanceTable(() => definition.make(), options.maxInstances ?? DEFAULT_MAX_INSTANCES, options.idleTtlMs ?? DEFAULT_IDLE_TTL_MS);

  const indexField = adapter.indexField ?? 'data_idx';

  async function reset(id: number, dataIdx: number, seed: number | undefined): Promise<JsonValue> {
    const taskId = order.taskIdAt(dataIdx);
    if (taskId === undefined) {
      throw new EnvError('TASK_UNKNOWN', `data_idx ${dataIdx} out of range 0..${order.size - 1} (test tasks first, then train)`);
    }
    const instance = table.acquire(id);
    try {
      instance.phase = 'created';
      const result = await instance.env.reset(seed === undefined ? { taskId } : { taskId, seed });
      instance.observation = adapter.observation(result);
      instance.reward = 0;
      instance.phase = 'running';
      return adapter.resetReply(id, instance.observation, result);
    } finally {
      table.release(instance);
    }
  }

  async function step(id: number, action: string): Promise<Reply> {
    const instance = table.acquire(id);
    try {
      if (instance.phase === 'created') throw new EnvError('ENV_NOT_RESET', `instance ${id} has not been reset: POST /reset {"${adapter.idField}": ${id}, "${indexField}": N} first`);
      if (instance.phase === 'done') throw new EnvError('ENV_NOT_RESET', `The task with environment ${id} has finished: POST /reset to start another`);
      const result = await instance.env.step(action);
      instance.reward += result.reward;
      instance.observation = adapter.observation(result);
      if (result.terminated || result.truncated) instance.phase = 'done';
      const score = typeof result.info.score === 'number' ? result.info.score : instance.reward;
      return adapter.stepReply(instance.observation, result, score);
    } finally {
      table.release(instance);
    }
  }

  async function create(body: Body): Promise<JsonValue> {
    const unsupported = adapter.checkCreate(body);
    if (unsupported !== undefined) throw new EnvError('PROTOCOL_ERROR', unsupported);
    const instance = table.create();
    if (!adapter.resetOnCreate) return { [adapter.idField]: instance.id };
    try {
      const index = adapter.indexField !== undefined ? (optionalIntField(body, adapter.indexField) ?? 0) : 0;
      const reply = await reset(instance.id, index, undefined);
      return adapter.createReply ? adapter.createReply(instance.id, reply) : reply;
    } catch (err) {
      table.remove(instance.id);
      throw err;
    }
  }

  function observation(url: string): JsonValue {
    const query = new URLSearchParams(url.slice(url.indexOf('?') + 1));
    const raw = query.get(adapter.idField);
    if (raw === null || !/^\d+$/.test(raw)) throw new BadRequest(400, `query parameter "${adapter.idField}" must be an integer, got ${JSON.stringify(raw)}`);
    const instance = table.peek(Number(raw));
    if (!instance) throw new EnvError('ENV_CLOSED', `The id ${raw} is not valid.`);
    if (instance.observation === undefined) throw new EnvError('ENV_NOT_RESET', `instance ${raw} has not been reset`);
    instance.lastUsed = performance.now();
    return instance.observation;
  }

  async function route(req: http.IncomingMessage, path: string): Promise<JsonValue> {
    if (req.method === 'GET') {
      if (path === '/observation') return observation(req.url ?? '');
      if (path === '/') return `This is environment ${definition.spec.id} (actorgym, AgentGym HTTP protocol).`;
    } else if (req.method === 'POST') {
      const idField = adapter.idField;
      switch (path) {
        case '/step': {
          const body = await readJsonBody(req, maxBodyBytes);
          return step(intField(body, idField), stringField(body, 'action'));
        }
        case '/reset': {
          const body = await readJsonBody(req, maxBodyBytes);
          return reset(intField(body, idField), intField(body, indexField), optionalIntField(body, 'seed'));
        }
        case '/create':
          return create(await readJsonBody(req, maxBodyBytes));
        case '/close':
          return table.remove(intField(await readJsonBody(req, maxBodyBytes), idField));
      }
    }
    const known = ['/create', '/reset', '/step', '/close', '/observation', '/'];
    if (known.includes(path)) throw new BadRequest(405, `method ${req.method ?? '?'} not allowed on ${path}`);
    throw new BadRequest(404, `no route ${req.method ?? '?'} ${path}; routes: POST /create /reset /step /close, GET /observation?${adapter.idField}=N`);
  }

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    route(req, q < 0 ? url : url.slice(0, q)).then(
      (value) => sendJson(res, 200, value),
      (err: unknown) => {
        if (err instanceof BadRequest) return sendJson(res, err.status, { error: err.message }, err.status === 413);
        const code = err instanceof EnvError ? err.code : 'ENV_INTERNAL';
        sendJson(res, 200, { error: err instanceof Error ? err.message : String(err), code });
      },
    );
  });
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = server.keepAliveTimeout + 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      // After listening, the only server errors are failed accepts (e.g. out of file
      // descriptors): the connection is lost, the server keeps serving.
      server.on('error', () => undefined);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await table.closeAll();
        await stopped;
      })()),
  };
}
