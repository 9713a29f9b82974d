/**
 * One client connection of the env server: its env instances, its rate limit and the dispatch
 * of its frames. Instances belong to the connection that created them (another connection
 * cannot see them) and are all closed when it closes, so an abandoned client leaks nothing.
 */
import { WebSocket, type RawData } from 'ws';
import type { Env, EnvDefinition, Oracle } from '../../envs/contract.ts';
import { decodeJson, readId } from '../../streams/wire/decode.ts';
import { decodeEnvRequest, encodeError, encodeResult } from '../../streams/wire/env-codec.ts';
import type { EnvRequest, RequestId } from '../../streams/wire/env-schemas.ts';
import { toWireError, WireFault, type WireError } from '../../streams/wire/errors.ts';
import { CloseCode } from '../../streams/wire/limits.ts';
import type { WriteBatch } from '../../streams/wire/write-batch.ts';
import type { TokenBucket } from './token-bucket.ts';

/** Server-wide counters, shared by all connections (read by `EnvServerHandle.stats`). */
export interface EnvServerCounters {
  frames: number;
  errors: number;
  rateLimited: number;
  timeouts: number;
  instances: number;
}

export interface ConnectionContext {
  readonly resolveEnv: (id: string) => EnvDefinition;
  readonly maxInstances: number;
  readonly callTimeoutMs: number;
  readonly maxBufferedBytes: number;
  readonly nextInstanceId: () => string;
  readonly now: () => number;
  readonly counters: EnvServerCounters;
}

interface Instance {
  readonly id: string;
  readonly definition: EnvDefinition;
  readonly env: Env;
  /** Request id of the reset/step/oracle in flight: calls on one env never overlap. */
  running: RequestId | undefined;
  startedAt: number;
  wasReset: boolean;
  oracle: Oracle | undefined;
  /** The running call was answered with ENV_TIMEOUT: its late result must not be a second reply. */
  timedOut: boolean;
}

type InstanceRequest = Extract<EnvRequest, { op: 'reset' | 'step' | 'oracle' }>;

export class EnvConnection {
  private readonly instances = new Map<string, Instance>();

  constructor(
    private readonly ws: WebSocket,
    private readonly batch: WriteBatch,
    private readonly context: ConnectionContext,
    private readonly bucket: TokenBucket | undefined,
  ) {
    ws.on('message', (data: RawData, isBinary: boolean) => this.onFrame(data, isBinary));
  }

  /** Answers every call that has run past `callTimeoutMs` with ENV_TIMEOUT and drops its instance. */
  sweep(now: number): void {
    for (const instance of this.instances.values()) {
      if (instance.running === undefined || now - instance.startedAt < this.context.callTimeoutMs) continue;
      instance.timedOut = true;
      this.context.counters.timeouts++;
      this.replyError(instance.running, {
        code: 'ENV_TIMEOUT',
        message: `env call ran past ${this.context.callTimeoutMs} ms; instance ${instance.id} was closed`,
      });
      this.drop(instance).catch(ignore);
    }
  }

  /** Closes every instance of the connection; called once the socket has closed. */
  async dispose(): Promise<void> {
    await Promise.allSettled([...this.instances.values()].map((instance) => this.drop(instance)));
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    this.context.counters.frames++;
    if (this.bucket !== undefined && !this.bucket.take()) {
      this.context.counters.rateLimited++;
      const json = decodeJson(data, isBinary);
      const message = 'too many frames on this connection; nothing was executed, retry later';
      return this.replyError(json.ok ? readId(json.value) : null, { code: 'RATE_LIMITED', message });
    }
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
    instance.running = request.id;
    instance.startedAt = this.context.now();
    let result: unknown;
    let failure: WireError | undefined;
    try {
      result = await this.invoke(instance, request);
    } catch (error) {
      failure = toWireError(error);
    }
    if (instance.timedOut) return;
    instance.running = undefined;
    if (failure === undefined) this.reply(request.id, result);
    else this.replyError(request.id, failure);
  }

  private async invoke(instance: Instance, request: InstanceRequest): Promise<unknown> {
    switch (request.op) {
      case 'reset': {
        const { taskId, seed } = request;
        const result = await instance.env.reset(seed === undefined ? { taskId } : { taskId, seed });
        instance.wasReset = true;
        return result;
      }
      case 'step':
        return instance.env.step(request.action);
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
    if (this.instances.size >= this.context.maxInstances) {
      throw new WireFault(
        'TOO_MANY_INSTANCES',
        `this connection already holds ${this.context.maxInstances} instances; close some first`,
      );
    }
    const definition = this.context.resolveEnv(envId);
    const env = definition.make();
    const id = this.context.nextInstanceId();
    this.instances.set(id, { id, definition, env, running: undefined, startedAt: 0, wasReset: false, oracle: undefined, timedOut: false });
    this.context.counters.instances++;
    return id;
  }

  private instance(id: string): Instance {
    const instance = this.instances.get(id);
    if (instance === undefined) throw new WireFault('INSTANCE_UNKNOWN', `no instance "${id}" on this connection`);
    return instance;
  }

  private drop(instance: Instance): Promise<void> {
    if (!this.instances.delete(instance.id)) return Promise.resolve();
    this.context.counters.instances--;
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
    if (ws.bufferedAmount > this.context.maxBufferedBytes) {
      ws.close(CloseCode.POLICY, 'peer too slow: outbound buffer over limit');
      return;
    }
    this.batch.hold();
    ws.send(text);
  }
}

function ignore(): void {}
