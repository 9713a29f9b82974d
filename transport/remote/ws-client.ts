/**
 * Client of actorgym's env server (docs/protocol.md): one WebSocket carries any number of
 * remote envs. `remoteEnvDefinition` turns a served env into an `EnvDefinition`, so a run uses a
 * remote env exactly as a local one.
 */
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import {
  CLIENT_CALL_TIMEOUT_MS,
  CLIENT_HEARTBEAT_MS,
  CLIENT_HIGH_WATER_MARK,
  CLIENT_MAX_PAYLOAD,
  CLIENT_PROBE_MS,
  CONNECT_TIMEOUT_MS,
} from '../wire/limits.ts';
import { openWebSocket, refusalStatus, whenOpen } from '../wire/ws-connect.ts';
import { WriteBatch } from '../wire/write-batch.ts';
import { EnvError, type Env, type EnvDefinition, type EnvSpec, type Split } from '../../envs/contract.ts';
import { WsRemoteEnv } from './ws-remote-env.ts';
import { WsRpc } from './ws-rpc.ts';

/**
 * Options of `connectEnvServer`: the bearer token, the call deadline and the connection's limits.
 */
export interface EnvServerConnectOptions {
  /** Bearer token, sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Deadline of each call (ms); past it the call rejects with ENV_TIMEOUT. Default 30 000. */
  readonly callTimeoutMs?: number;
  /** Ping interval (ms); a server missing a pong is dropped (ENV_LOST). 0 disables. Default 15 000. */
  readonly heartbeatMs?: number;
  /**
   * After a call misses its deadline, how long the probe (a ping) waits for its pong before the
   * server is taken for frozen and dropped (ms). Default the smaller of the call deadline and 5 000.
   */
  readonly probeMs?: number;
  /** Opening handshake deadline (ms). Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Largest inbound frame (bytes). Default 16 MiB. */
  readonly maxPayload?: number;
}

/** What the server says about an env family. */
export interface RemoteEnvInfo {
  readonly spec: EnvSpec;
  /** Whether `oracle` works for this env's instances. */
  readonly hasOracle: boolean;
}

/**
 * One WebSocket to an env server (docs/protocol.md), carrying any number of remote env instances.
 */
export interface EnvServerConnection {
  readonly url: string;
  /** True once the socket has closed; every call then rejects with ENV_LOST. */
  readonly closed: boolean;
  /** Calls `listener` once when the socket closes, with the ENV_LOST error later calls get. */
  onLost(listener: (error: EnvError) => void): void;
  /**
   * Calls `listener(true, why)` when a call misses its deadline (the server may be frozen: place
   * nothing new on it) and `listener(false, why)` once it has answered a probe. Optional: a
   * connection without it is never suspect.
   */
  onSuspect?(listener: (suspect: boolean, why: string) => void): void;
  describe(envId: string): Promise<RemoteEnvInfo>;
  spec(envId: string): Promise<EnvSpec>;
  tasks(envId: string, split: Split): Promise<readonly string[]>;
  /** A remote env; its server instance is created by the first `reset`. Needs `spec(envId)` fetched first. */
  makeEnv(envId: string): Env;
  /** The next action of the server-side oracle for `env` (made by this connection, and reset). */
  oracle(env: Env): Promise<string>;
  /** Closes the socket; the server closes every instance of this connection. */
  close(): Promise<void>;
}

/** Connects; rejects with ENV_LOST when the server is unreachable, PROTOCOL_ERROR when it refuses the token. */
export async function connectEnvServer(url: string, options: EnvServerConnectOptions = {}): Promise<EnvServerConnection> {
  const ws = openWebSocket(url, {
    token: options.token,
    connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    maxPayload: options.maxPayload ?? CLIENT_MAX_PAYLOAD,
  });
  let socket: Socket | undefined;
  ws.once('upgrade', (response: IncomingMessage) => (socket = response.socket as Socket));
  try {
    await whenOpen(ws);
  } catch (error) {
    const status = refusalStatus(ws);
    if (status === 401) throw new EnvError('PROTOCOL_ERROR', `UNAUTHORIZED: ${url} refused the bearer token (HTTP 401)`);
    const why = status !== undefined ? `HTTP ${status}` : (error as Error).message;
    throw new EnvError('ENV_LOST', `cannot connect to ${url}: ${why}`);
  }
  const callTimeoutMs = options.callTimeoutMs ?? CLIENT_CALL_TIMEOUT_MS;
  const rpc = new WsRpc(ws, socket, socket && new WriteBatch(socket), {
    callTimeoutMs,
    heartbeatMs: options.heartbeatMs ?? CLIENT_HEARTBEAT_MS,
    probeMs: options.probeMs ?? Math.min(callTimeoutMs, CLIENT_PROBE_MS),
    highWaterMark: CLIENT_HIGH_WATER_MARK,
    now: () => performance.now(),
  });
  return new WsEnvServerConnection(url, rpc);
}

class WsEnvServerConnection implements EnvServerConnection {
  private readonly specs = new Map<string, EnvSpec>();

  constructor(
    readonly url: string,
    private readonly rpc: WsRpc,
  ) {}

  get closed(): boolean {
    return this.rpc.closed;
  }

  onLost(listener: (error: EnvError) => void): void {
    this.rpc.onLost(listener);
  }

  onSuspect(listener: (suspect: boolean, why: string) => void): void {
    this.rpc.onSuspect(listener);
  }

  async describe(envId: string): Promise<RemoteEnvInfo> {
    const info = await this.rpc.call({ op: 'spec', env: envId });
    this.specs.set(envId, info.spec);
    return info;
  }

  async spec(envId: string): Promise<EnvSpec> {
    return (await this.describe(envId)).spec;
  }

  async tasks(envId: string, split: Split): Promise<readonly string[]> {
    return (await this.rpc.call({ op: 'tasks', env: envId, split })).tasks;
  }

  makeEnv(envId: string): Env {
    const spec = this.specs.get(envId);
    if (spec === undefined) throw new EnvError('ENV_UNKNOWN', `fetch the spec of "${envId}" (spec or describe) before makeEnv`);
    return new WsRemoteEnv(spec, envId, this.rpc);
  }

  oracle(env: Env): Promise<string> {
    if (!(env instanceof WsRemoteEnv) || !env.isOn(this.rpc)) {
      return Promise.reject(new EnvError('PROTOCOL_ERROR', 'oracle(env) needs an env made by this connection'));
    }
    return env.oracleAction();
  }

  close(): Promise<void> {
    return this.rpc.close();
  }
}

/** An env definition served remotely; `close()` closes its connection (and so every instance). */
export interface RemoteEnvDefinition extends EnvDefinition {
  readonly connection: EnvServerConnection;
  close(): Promise<void>;
}

/**
 * Connects to `url` and fetches `envId`'s spec and both task lists once. `make()` returns
 * remote envs over that one connection; `oracle` is present when the server's env has one.
 * An idle connection does not keep the process alive, but close it when done.
 */
export async function remoteEnvDefinition(
  url: string,
  envId: string,
  options: EnvServerConnectOptions = {},
): Promise<RemoteEnvDefinition> {
  const connection = await connectEnvServer(url, options);
  try {
    const [info, train, test] = await Promise.all([
      connection.describe(envId),
      connection.tasks(envId, 'train'),
      connection.tasks(envId, 'test'),
    ]);
    // The held-out-template split only where the served env declares it (older servers do not know the name).
    const templates = info.spec.splits['test-templates'] ? await connection.tasks(envId, 'test-templates') : [];
    const definition: RemoteEnvDefinition = {
      spec: info.spec,
      connection,
      tasks: (split) => (split === 'train' ? train : split === 'test' ? test : templates),
      make: () => connection.makeEnv(envId),
      close: () => connection.close(),
    };
    if (!info.hasOracle) return definition;
    return { ...definition, oracle: (env) => ({ next: () => connection.oracle(env) }) };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
