/**
 * The learner server: rollout workers connect to it over WebSockets (protocol in
 * docs/distributed-training.md), get the run and the current weights, and stream back the
 * trajectory groups of the assignments its remote producer (remote-producer.ts) hands them. It
 * sits on the shared listener (../listener/ws-listener.ts), so it has the other servers' auth,
 * Origin checks, limits, `/healthz` `/readyz`, heartbeat and drain.
 *
 * The training system plugs `handle.producer` in where it would collect locally, and calls
 * `handle.publish(weights)` after each learner step: every worker gets the version frame and the
 * weights frame, and applies them before its next assignment.
 */
import type { RunSpec } from '../../transport/learner-wire/learner-schemas.ts';
import {
  LEARNER_FRAME_BUDGET,
  LEARNER_HELLO_TIMEOUT_MS,
  LEARNER_MAX_BUFFERED_BYTES,
  LEARNER_MAX_QUEUED_BYTES,
  LEARNER_MAX_QUEUED_FRAMES,
  LEARNER_MAX_REPLY_BYTES,
  LEARNER_MAX_TOTAL_REPLY_BYTES,
  LEARNER_PAUSE_REPLY_BYTES,
  LEARNER_SERVER_MAX_PAYLOAD,
} from '../../transport/learner-wire/limits.ts';
import { encodeWeightsFrame, type WeightsPayload } from '../../transport/learner-wire/weights-frame.ts';
import { SERVER_DRAIN_TIMEOUT_MS, SERVER_HEARTBEAT_MS } from '../../transport/wire/limits.ts';
import { FrameBudget } from '../listener/frame-budget.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { OutboundBudget } from '../listener/outbound-budget.ts';
import { listenWebSocket, type WsListener } from '../listener/ws-listener.ts';
import { RemoteProducer } from './remote-producer.ts';
import { WorkerConnection, type LearnerContext } from './worker-connection.ts';

/** Options of `startLearnerServer`; limits default to transport/learner-wire/limits.ts and transport/wire/limits.ts. */
export interface LearnerServerOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /** Bearer token every worker must present; none means no authentication. */
  readonly token?: string;
  /** What every worker is told in its welcome. */
  readonly run: RunSpec;
  /** The weights workers start from (version 0, or a resumed run's). */
  readonly weights: WeightsPayload;
  /** Ping interval (ms); 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  /** Largest inbound frame (bytes). Default 64 MiB. */
  readonly maxPayload?: number;
  /** A connection that has not said hello by then is closed (1008). Default 10 000 ms. */
  readonly helloTimeoutMs?: number;
  /** Bytes queued for one worker (unread weights frames) before it is closed with 1008. Default 1 GiB. */
  readonly maxBufferedBytes?: number;
  /**
   * Frames per second over all worker connections, shared round-robin, with at most `sliceMs` of
   * frame work per event-loop turn; `false` disables. Default `LEARNER_FRAME_BUDGET` (10 000/s).
   */
  readonly frameBudget?: { readonly perSecond: number; readonly burst: number; readonly sliceMs: number } | false;
  /** Reply bytes other than weights frames queued for all workers; past it a worker over its share is closed (1008). Default 128 MiB. */
  readonly maxTotalReplyBytes?: number;
  /** Times a group may be handed out before its step fails. Default 5. */
  readonly maxGroupAttempts?: number;
  readonly allowOrigins?: readonly string[];
  readonly handshakeTimeoutMs?: number;
  readonly maxConnections?: number;
  readonly log?: OpsLog;
}

export interface LearnerServerStats {
  readonly workers: number;
  readonly assignments: number;
  readonly inFlight: number;
  readonly groups: number;
  readonly duplicates: number;
  readonly reassigned: number;
  readonly frames: number;
  readonly refused: number;
  /** Connections closed with 1008 for a limit (no hello in time, a worker that does not read) since start. */
  readonly policyCloses: number;
  /** Reply bytes other than weights frames queued for all workers now, and the most since start. */
  readonly replyBytes: number;
  readonly peakReplyBytes: number;
  readonly version: number;
}

export interface LearnerServerHandle {
  readonly port: number;
  /** `ws://host:port`, for `actorgym worker --learner`. */
  readonly url: string;
  /** The producer the training system collects through (actors/buffer/producer.ts's `Producer`, structurally). */
  readonly producer: RemoteProducer;
  /** Broadcasts a new version's weights; workers that join later get it in their welcome. */
  publish(weights: WeightsPayload): void;
  /** Refuses new workers, tells the connected ones, waits for assignments in flight (up to `timeoutMs`), then closes. */
  drain(timeoutMs?: number): Promise<void>;
  /** Closes every worker (1001); collections still waiting reject. */
  close(): Promise<void>;
  stats(): LearnerServerStats;
}

/**
 * Starts the learner server; resolves once listening.
 *
 * @example
 * const server = await startLearnerServer({ port: 8200, run, weights: await model.exportWeights(0) });
 * await server.producer.produce({ step: 1, horizon: 6, groups: [0, 1, 2, 3] }, (g) => buffer.offer(g), signal);
 * server.publish(await model.exportWeights(1));
 */
export async function startLearnerServer(options: LearnerServerOptions): Promise<LearnerServerHandle> {
  const log = options.log ?? (() => {});
  const producer = new RemoteProducer(options.weights.version, log, options.maxGroupAttempts);
  let current = { version: options.weights.version, frame: encodeWeightsFrame(options.weights) };
  const connections = new Set<WorkerConnection>();
  const frameBudget = options.frameBudget ?? LEARNER_FRAME_BUDGET;
  const context: LearnerContext = {
    run: options.run, producer, current: () => current, helloTimeoutMs: options.helloTimeoutMs ?? LEARNER_HELLO_TIMEOUT_MS,
    maxBufferedBytes: options.maxBufferedBytes ?? LEARNER_MAX_BUFFERED_BYTES,
    names: new Set(), log, counters: { frames: 0, refused: 0, policyCloses: 0 },
    frames: frameBudget === false ? undefined : new FrameBudget({ ...frameBudget, maxQueuedFrames: LEARNER_MAX_QUEUED_FRAMES, maxQueuedBytes: LEARNER_MAX_QUEUED_BYTES }),
    replies: new OutboundBudget(LEARNER_MAX_REPLY_BYTES, options.maxTotalReplyBytes ?? LEARNER_MAX_TOTAL_REPLY_BYTES, LEARNER_PAUSE_REPLY_BYTES),
  };
  const listener = await listenWebSocket({
    port: options.port, host: options.host ?? '127.0.0.1', token: options.token,
    heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS, maxPayload: options.maxPayload ?? LEARNER_SERVER_MAX_PAYLOAD,
    ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
    ...(options.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: options.handshakeTimeoutMs } : {}),
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    log,
    health: () => ({ ready: true, detail: { workers: producer.workers, inFlight: producer.inFlight, version: current.version } }),
  }, (ws, _request, socket, peer) => {
    const connection = new WorkerConnection(ws, context, peer.peer, socket);
    connections.add(connection);
    ws.once('close', () => connections.delete(connection));
    return { closeDetail: () => ({ worker: connection.name }) };
  });
  const publish = (weights: WeightsPayload): void => {
    current = { version: weights.version, frame: encodeWeightsFrame(weights) };
    producer.version = weights.version;
    for (const connection of connections) connection.sendVersion(current.version, current.frame);
  };
  return new LearnerServer(listener, producer, connections, context, publish);
}

class LearnerServer implements LearnerServerHandle {
  #closing: Promise<void> | undefined;
  #drained: Promise<void> | undefined;

  constructor(
    private readonly listener: WsListener,
    readonly producer: RemoteProducer,
    private readonly connections: Set<WorkerConnection>,
    private readonly context: LearnerContext,
    readonly publish: (weights: WeightsPayload) => void,
  ) {}

  get port(): number {
    return this.listener.port;
  }

  get url(): string {
    return this.listener.url;
  }

  stats(): LearnerServerStats {
    const { producer, context } = this;
    return {
      workers: producer.workers, inFlight: producer.inFlight, ...producer.counters, ...context.counters,
      replyBytes: context.replies.bytes, peakReplyBytes: context.replies.peak, version: producer.version,
    };
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.listener.close();
      this.context.frames?.stop();
      this.producer.close(new Error('the learner server closed'));
    })();
    return this.#closing;
  }

  drain(timeoutMs = SERVER_DRAIN_TIMEOUT_MS): Promise<void> {
    this.#drained ??= (async () => {
      this.listener.drain();
      for (const connection of this.connections) connection.drain('the learner is shutting down; reconnect to it when it is back');
      const deadline = Date.now() + timeoutMs;
      while (this.producer.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await this.close();
    })();
    return this.#drained;
  }
}
