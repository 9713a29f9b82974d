/**
 * The HTTP plumbing of the AgentGym client (agentgym-http-env.ts): one keep-alive agent per
 * server, JSON calls with a deadline, and AgentGym's `{"error"}` replies read as `EnvError`s
 * (refused or reset connection → ENV_LOST, no reply in time → ENV_TIMEOUT).
 */
import http from 'node:http';
import { EnvError, type EnvErrorCode } from '../../envs/contract.ts';

/** Sockets per server: 64 concurrent episodes keep at most one call each in flight, plus headroom. */
export const AGENT_MAX_SOCKETS = 128;

/** A server: its address, route prefix and shared keep-alive agent. */
export interface Target {
  readonly key: string;
  readonly hostname: string;
  readonly port: number;
  readonly prefix: string;
  readonly agent: http.Agent;
  /** `Bearer T` when the client has a token (an actorgym server's `--token`); AgentGym's own servers ignore it. */
  readonly authorization?: string;
}

// One keep-alive agent per server, shared by its Envs and destroyed when the last one closes,
// so closed Envs leave no sockets behind.
const agents = new Map<string, { agent: http.Agent; refs: number }>();

export function acquireTarget(baseUrl: string, token?: string): Target {
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
  const authorization = token ? { authorization: `Bearer ${token}` } : {};
  return { key, hostname: url.hostname, port, prefix: url.pathname.replace(/\/+$/, ''), agent: pooled.agent, ...authorization };
}

export function releaseTarget(target: Target): void {
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

export function call(target: Target, method: 'GET' | 'POST', path: string, body: string | undefined, deadline: number, retry = true): Promise<unknown> {
  const what = `${method} ${path}`;
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (target.authorization !== undefined) headers['authorization'] = target.authorization;
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

