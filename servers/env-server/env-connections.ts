/**
 * The env server's connections and what they share: server-wide counters, the outbound byte
 * budget, instance ids, the drain flag, and one deadline sweep for every running call. It opens
 * an `EnvConnection` for each accepted peer, closes its instances when the peer goes, and tells a
 * drain when the server has fallen idle. Instances are counted per client (a token, or an
 * address without one) beside the server-wide cap, and frames run through one server-wide
 * frame budget (../listener/frame-budget.ts).
 */
import type { WebSocket } from 'ws';
import type { Duplex } from 'node:stream';
import type { EnvDefinition } from '../../envs/contract.ts';
import { WriteBatch } from '../../transport/wire/write-batch.ts';
import type { HealthState } from '../listener/health.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { ConnectionHooks } from '../listener/ws-listener.ts';
import { FrameBudget } from '../listener/frame-budget.ts';
import type { PeerInfo } from '../listener/ws-listener.ts';
import { EnvConnection, type ConnectionContext, type EnvServerCounters } from './connection.ts';
import { OutboundBudget } from '../listener/outbound-budget.ts';
import { TokenBucket, type RateLimit } from './token-bucket.ts';

/** Everything `EnvConnections` needs, defaults resolved (env-server.ts reads them from the options). */
export interface EnvConnectionsOptions {
  readonly resolveEnv: (id: string) => EnvDefinition;
  readonly maxInstancesPerConnection: number;
  readonly maxInstances: number;
  /** Instances one client (a token, or an address without one) may hold over all its connections. */
  readonly maxInstancesPerClient: number;
  readonly callTimeoutMs: number;
  readonly rateLimit: RateLimit | false;
  readonly maxBufferedBytes: number;
  readonly maxTotalBufferedBytes: number;
  /** Reply bytes waiting for one peer past which its frames wait for its socket to drain. */
  readonly pauseBufferedBytes: number;
  /** The process's buffered-bytes budget when shared with another server; else one is made of the three limits above. */
  readonly outbound?: OutboundBudget;
  /** The server-wide frame budget; `false` runs every frame as it arrives. */
  readonly frameBudget: { readonly perSecond: number; readonly burst: number; readonly sliceMs: number } | false;
  readonly maxQueuedFrames: number;
  readonly maxQueuedBytes: number;
  readonly log: OpsLog;
  readonly now: () => number;
}

export class EnvConnections {
  readonly counters: EnvServerCounters = { frames: 0, errors: 0, rateLimited: 0, timeouts: 0, instances: 0, policyCloses: 0 };
  readonly outbound: OutboundBudget;
  readonly frames: FrameBudget | undefined;
  #draining = false;
  #instanceSeq = 0;
  readonly #open = new Set<EnvConnection>();
  readonly #disposing = new Set<Promise<void>>();
  readonly #context: ConnectionContext;
  #sweep: NodeJS.Timeout | undefined;
  /** Resolves a drain waiting for the server to fall idle. */
  #onSettled: (() => void) | undefined;

  constructor(private readonly options: EnvConnectionsOptions) {
    this.outbound = options.outbound ?? new OutboundBudget(options.maxBufferedBytes, options.maxTotalBufferedBytes, options.pauseBufferedBytes);
    const { frameBudget, maxQueuedFrames, maxQueuedBytes, now } = options;
    this.frames = frameBudget === false ? undefined : new FrameBudget({ ...frameBudget, maxQueuedFrames, maxQueuedBytes, now });
    this.#context = {
      resolveEnv: options.resolveEnv,
      maxInstances: options.maxInstancesPerConnection,
      maxServerInstances: options.maxInstances,
      callTimeoutMs: options.callTimeoutMs,
      outbound: this.outbound,
      frames: this.frames,
      maxInstancesPerClient: options.maxInstancesPerClient,
      perClient: new Map(),
      nextInstanceId: () => `i${++this.#instanceSeq}`,
      now: options.now,
      counters: this.counters,
      log: options.log,
      draining: () => this.#draining,
      settled: () => this.#onSettled?.(),
    };
  }

  /** WebSocket connections open now. */
  get size(): number {
    return this.#open.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** The env server's part of `/readyz`: not ready while at the server-wide instance cap. */
  health(): HealthState {
    const detail = { instances: this.counters.instances, maxInstances: this.options.maxInstances, frames: this.counters.frames };
    return this.counters.instances >= this.options.maxInstances ? { ready: false, reason: 'at the instance limit', detail } : { ready: true, detail };
  }

  /** Serves an accepted peer until it closes, then closes its instances. */
  accept(ws: WebSocket, socket: Duplex, peer: PeerInfo): ConnectionHooks {
    const bucket = this.options.rateLimit === false ? undefined : new TokenBucket(this.options.rateLimit, this.options.now);
    const who = { peer: peer.peer, client: peer.client, socket };
    const connection = new EnvConnection(ws, new WriteBatch(socket), this.#context, bucket, who);
    this.#open.add(connection);
    ws.once('close', () => this.closed(connection));
    return { closeDetail: () => ({ instances: connection.instanceCount }) };
  }

  /**
   * Starts the deadline sweep: one timer for all calls instead of one per call, so a call times
   * out between callTimeoutMs and 1.25 × callTimeoutMs after it started.
   */
  startSweep(): void {
    const every = Math.max(5, Math.min(1_000, this.options.callTimeoutMs / 4));
    this.#sweep = setInterval(() => this.sweep(), every);
    this.#sweep.unref();
  }

  /** From now on nothing new starts (`create`, `reset` get SERVER_DRAINING). */
  startDraining(): void {
    this.#draining = true;
  }

  /** Resolves once no call runs and no episode is under way, or after `timeoutMs`. */
  async untilIdle(timeoutMs: number): Promise<void> {
    if (!this.busy()) return;
    await new Promise<void>((resolve) => {
      const deadline = setTimeout(resolve, timeoutMs);
      this.#onSettled = () => {
        if (this.busy()) return;
        clearTimeout(deadline);
        resolve();
      };
    });
    this.#onSettled = undefined;
  }

  /** Answers every call still running with SERVER_DRAINING (the drain deadline has passed). */
  abandonRunning(): void {
    for (const connection of this.#open) connection.abandonRunning();
  }

  stopSweep(): void {
    this.frames?.stop();
    clearInterval(this.#sweep);
  }

  /** Waits for the instances of every closed connection to be closed. */
  async disposed(): Promise<void> {
    await Promise.allSettled([...this.#disposing]);
  }

  private busy(): boolean {
    return [...this.#open].some((connection) => connection.busy);
  }

  private sweep(): void {
    const t = this.options.now();
    for (const connection of this.#open) connection.sweep(t);
  }

  private closed(connection: EnvConnection): void {
    this.#open.delete(connection);
    const disposed = connection.dispose();
    this.#disposing.add(disposed);
    void disposed.finally(() => this.#disposing.delete(disposed));
  }
}
