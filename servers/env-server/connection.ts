/**
 * One client connection of the env server: its env instances, its rate limit and the dispatch
 * of its frames. Instances belong to the connection that created them (another connection
 * cannot see them) and are all closed when it closes, so an abandoned client leaks nothing.
 */
import { WebSocket, type RawData } from 'ws';
import type { Env, EnvDefinition, Oracle } from '../../envs/contract.ts';
import { decodeJson, readId } from '../../transport/wire/decode.ts';
import { decodeEnvRequest, encodeError, encodeResult } from '../../transport/wire/env-codec.ts';
import type { EnvRequest, RequestId } from '../../transport/wire/env-schemas.ts';
import { toWireError, WireFault, type WireError } from '../../transport/wire/errors.ts';
import { CloseCode, SERVER_CLOSE_GRACE_MS } from '../../transport/wire/limits.ts';
import type { WriteBatch } from '../../transport/wire/write-batch.ts';
import type { FrameBudget } from '../listener/frame-budget.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { OutboundBudget, OutboundPeer } from '../listener/outbound-budget.ts';
import { openWsLane, type SubmitFrame } from '../listener/ws-lane.ts';
import type { TokenBucket } from './token-bucket.ts';

/** Server-wide counters, shared by all connections (read by `EnvServerHandle.stats`). */
export interface EnvServerCounters {
  frames: number;
  errors: number;
  rateLimited: number;
  timeouts: number;
  instances: number;
  /** Connections closed with 1008 for a limit (outbound buffer, rate limit). */
  policyCloses: number;
}

export interface ConnectionContext {
  readonly resolveEnv: (id: string) => EnvDefinition;
  /** Instances per connection. */
  readonly maxInstances: number;
  /** Instances over all connections. */
  readonly maxServerInstances: number;
  readonly callTimeoutMs: number;
  readonly outbound: OutboundBudget;
  /** The server-wide frame budget; undefined runs every frame as it arrives. */
  readonly frames: FrameBudget | undefined;
  /** Instances one client (a token, or an address without a token) may hold over all its connections. */
  readonly maxInstancesPerClient: number;
  /** Instances each client holds now, by `PeerInfo.client`. */
  readonly perClient: Map<string, number>;
  readonly nextInstanceId: () => string;
  readonly now: () => number;
  readonly counters: EnvServerCounters;
  readonly log: OpsLog;
  /** True once the server drains: nothing new starts (`create`, `reset`). */
  readonly draining: () => boolean;
  /** Told whenever a call ends or an instance goes, so a drain can see the server fall idle. */
  readonly settled: () => void;
}

interface Instance {
  readonly id: string;
  readonly definition: EnvDefinition;
  readonly env: Env;
  /** Request id of the reset/step/oracle in flight: calls on one env never overlap. */
  running: RequestId | undefined;
  startedAt: number;
  wasReset: boolean;
  /** Reset and not yet terminated or truncated: a drain lets such an episode finish. */
  inEpisode: boolean;
  oracle: Oracle | undefined;
  /** The running call was already answered (ENV_TIMEOUT, SERVER_DRAINING): its late result must not be a second reply. */
  answered: boolean;
}

type InstanceRequest = Extract<EnvRequest, { op: 'reset' | 'step' | 'oracle' }>;

/** Who a connection is and what it holds on to, for the constructor. */
export interface ConnectionPeer {
  /** `address:port`, for log lines. */
  readonly peer: string;
  /** Who it counts as for per-client instance quotas. */
  readonly client: string;
  /** Its socket: `drain` there lets its frames run again after it fell behind reading. */
  readonly socket: NodeJS.EventEmitter;
}

/** Limit-hit log lines per connection and limit are at most one per this many ms (a flood would otherwise log every frame). */
const LIMIT_LOG_INTERVAL_MS = 1_000;

export class EnvConnection {
  private readonly instances = new Map<string, Instance>();
  private readonly outboundPeer: OutboundPeer;
  private readonly limitLogged = new Map<string, number>();
  private readonly submit: SubmitFrame;
  private readonly peer: string;
  private readonly client: string;

  constructor(
    private readonly ws: WebSocket,
    private readonly batch: WriteBatch,
    private readonly context: ConnectionContext,
    private readonly bucket: TokenBucket | undefined,
    who: ConnectionPeer,
  ) {
    this.peer = who.peer;
    this.client = who.client;
    this.outboundPeer = context.outbound.add(() => ws.bufferedAmount);
    this.submit = openWsLane(context.frames, ws, who.socket, {
      run: (data, isBinary) => this.execute(data, isBinary),
      blocked: () => context.outbound.blocked(this.outboundPeer),
    });
    ws.on('message', (data: RawData, isBinary: boolean) => this.onFrame(data, isBinary));
  }

  get instanceCount(): number {
    return this.instances.size;
  }

  /** A call is running, or an episode is under way, on one of this connection's instances. */
  get busy(): boolean {
    for (const instance of this.instances.values()) if (instance.running !== undefined || instance.inEpisode) return true;
    return false;
  }

  /** Answers every call that has run past `callTimeoutMs` with ENV_TIMEOUT and drops its instance. */
  sweep(now: number): void {
    for (const instance of this.instances.values()) {
      if (instance.running === undefined || now - instance.startedAt < this.context.callTimeoutMs) continue;
      instance.answered = true;
      this.context.counters.timeouts++;
      this.replyError(instance.running, {
        code: 'ENV_TIMEOUT',
        message: `env call ran past ${this.context.callTimeoutMs} ms; instance ${instance.id} was closed`,
      });
      this.drop(instance).catch(ignore);
    }
  }

  /** At the drain deadline: answers every call still running with SERVER_DRAINING. */
  abandonRunning(): void {
    for (const instance of this.instances.values()) {
      if (instance.running === undefined || instance.answered) continue;
      instance.answered = true;
      this.replyError(instance.running, { code: 'SERVER_DRAINING', message: 'the server shut down before this call ended' });
    }
  }

  /** Closes every instance of the connection; called once the socket has closed. */
  async dispose(): Promise<void> {
    this.context.outbound.remove(this.outboundPeer);
    await Promise.allSettled([...this.instances.values()].map((instance) => this.drop(instance)));
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    if (this.ws.readyState !== WebSocket.OPEN) return; // closing: its replies could not be sent
    this.context.counters.frames++;
    const verdict = this.bucket?.take() ?? 'ok';
    if (verdict !== 'ok') {
      this.context.counters.rateLimited++;
      this.limitHit('rate_limit');
      if (verdict === 'close') return this.closeForPolicy('rate limit exceeded: too many frames after RATE_LIMITED');
      const json = decodeJson(data, isBinary);
      const message = 'too many frames on this connection; nothing was executed, retry later';
      return this.replyError(json.ok ? readId(json.value) : null, { code: 'RATE_LIMITED', message });
    }
    this.submit(data, isBinary);
  }

  /** Decodes and runs a frame the budget let through. */
  private execute(data: RawData, isBinary: boolean): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const decoded = decodeEnvRequest(data, isBinary);
    if (!decoded.ok) return this.replyError(decoded.id, decoded.error);
    void this.handle(decoded.value);
  }

  private async handle(request: EnvRequest): Promise<void> {
    try {
      switch (request.op) {
        case 'spec': {
          const definition = this.context.resolveEnv(request.env);
          return this.reply(request.id, { spec: definition.spec, hasOracle: definition.oracle !== undefined });
        }
        case 'tasks':
          return this.reply(request.id, { tasks: this.context.resolveEnv(request.env).tasks(request.split) });
        case 'create':
          return this.reply(request.id, { instance: this.create(request.env) });
        case 'close':
          await this.drop(this.instance(request.instance));
          return this.reply(request.id, {});
        default:
          return await this.call(request);
      }
    } catch (error) {
      this.replyError(request.id, toWireError(error));
    }
  }

  private async call(request: InstanceRequest): Promise<void> {
    const instance = this.instance(request.instance);
    if (instance.running !== undefined) {
      throw new WireFault('INSTANCE_BUSY', `instance ${instance.id} is still running request ${instance.running}`);
    }
    if (request.op === 'reset' && this.context.draining()) throw drainingFault('starts no new episode');
    instance.running = request.id;
    instance.startedAt = this.context.now();
    let result: unknown;
    let failure: WireError | undefined;
    try {
      result = await this.invoke(instance, request);
    } catch (error) {
      failure = toWireError(error);
    }
    if (!instance.answered) {
      instance.running = undefined;
      if (failure === undefined) this.reply(request.id, result);
      else this.replyError(request.id, failure);
    }
    this.context.settled();
  }

  private async invoke(instance: Instance, request: InstanceRequest): Promise<unknown> {
    switch (request.op) {
      case 'reset': {
        const { taskId, seed } = request;
        instance.inEpisode = false;
        const result = await instance.env.reset(seed === undefined ? { taskId } : { taskId, seed });
        instance.wasReset = true;
        instance.inEpisode = true;
        return result;
      }
      case 'step': {
        const result = await instance.env.step(request.action);
        if (result.terminated || result.truncated) instance.inEpisode = false;
        return result;
      }
      case 'oracle': {
        const { definition } = instance;
        if (definition.oracle === undefined) throw new WireFault('NO_ORACLE', `env "${definition.spec.id}" has no oracle`);
        if (!instance.wasReset) throw new WireFault('ENV_NOT_RESET', 'reset the instance before asking its oracle');
        // One oracle per instance, as the in-process env pool does; it reads the env's current task.
        instance.oracle ??= definition.oracle(instance.env);
        return { action: await instance.oracle.next() };
      }
    }
  }

  private create(envId: string): string {
    if (this.context.draining()) throw drainingFault('creates no instances');
    this.checkQuotas();
    const { counters, perClient } = this.context;
    const definition = this.context.resolveEnv(envId);
    const env = definition.make();
    const id = this.context.nextInstanceId();
    this.instances.set(id, {
      id, definition, env, running: undefined, startedAt: 0, wasReset: false, inEpisode: false, oracle: undefined, answered: false,
    });
    counters.instances++;
    perClient.set(this.client, (perClient.get(this.client) ?? 0) + 1);
    return id;
  }

  /** Per connection, per client (issue 40: one token filled the server with 4 connections), then server-wide. */
  private checkQuotas(): void {
    const { counters, maxServerInstances, maxInstancesPerClient, perClient, maxInstances } = this.context;
    if (this.instances.size >= maxInstances) {
      this.limitHit('instances_per_connection');
      throw new WireFault('TOO_MANY_INSTANCES', `this connection already holds ${maxInstances} instances; close some first`);
    }
    if ((perClient.get(this.client) ?? 0) >= maxInstancesPerClient) {
      this.limitHit('instances_per_client');
      throw new WireFault(
        'TOO_MANY_INSTANCES',
        `your connections (this token, or this address without one) hold ${maxInstancesPerClient} instances, the limit per client; close some first`,
      );
    }
    if (counters.instances >= maxServerInstances) {
      this.limitHit('max_instances');
      throw new WireFault('TOO_MANY_INSTANCES', `this server holds ${maxServerInstances} instances, its limit; close some or use another server`);
    }
  }

  private instance(id: string): Instance {
    const instance = this.instances.get(id);
    if (instance === undefined) throw new WireFault('INSTANCE_UNKNOWN', `no instance "${id}" on this connection`);
    return instance;
  }

  private drop(instance: Instance): Promise<void> {
    if (!this.instances.delete(instance.id)) return Promise.resolve();
    this.context.counters.instances--;
    const held = (this.context.perClient.get(this.client) ?? 1) - 1;
    if (held > 0) this.context.perClient.set(this.client, held);
    else this.context.perClient.delete(this.client);
    this.context.settled();
    return instance.env.close();
  }

  private reply(id: RequestId, result: unknown): void {
    this.send(encodeResult(id, result));
  }

  private replyError(id: RequestId | null, error: WireError): void {
    this.context.counters.errors++;
    this.send(encodeError(id, error));
  }

  private send(text: string): void {
    const ws = this.ws;
    if (ws.readyState !== WebSocket.OPEN) return; // the peer left; its instances are being closed
    const over = this.context.outbound.overLimit(this.outboundPeer);
    if (over !== undefined) {
      this.limitHit('max_buffered_bytes', { buffered: this.outboundPeer.accounted });
      return this.closeForPolicy(over);
    }
    this.batch.hold();
    ws.send(text);
    this.context.outbound.sent(this.outboundPeer);
  }

  /**
   * Closes with 1008 and destroys the socket after a short grace: a peer that does not read
   * would never answer the closing handshake, and its queued replies would stay in memory for
   * ws's 30 s close timeout.
   */
  private closeForPolicy(reason: string): void {
    this.context.counters.policyCloses++;
    this.ws.close(CloseCode.POLICY, reason);
    const force = setTimeout(() => this.ws.terminate(), SERVER_CLOSE_GRACE_MS);
    this.ws.once('close', () => clearTimeout(force));
  }

  private limitHit(limit: string, fields: Readonly<Record<string, number>> = {}): void {
    const now = this.context.now();
    const last = this.limitLogged.get(limit);
    if (last !== undefined && now - last < LIMIT_LOG_INTERVAL_MS) return;
    this.limitLogged.set(limit, now);
    this.context.log('limit.hit', { limit, peer: this.peer, ...fields });
  }
}

function drainingFault(what: string): WireFault {
  return new WireFault('SERVER_DRAINING', `the server is shutting down and ${what}; use another server`);
}

function ignore(): void {}
