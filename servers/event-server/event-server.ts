/**
 * Serves a run's event stream over WebSocket (docs/protocol.md#event-stream). Each observer
 * sends `subscribe` (optionally naming event types) and gets `event` frames, then `end` and a
 * normal close when the run's stream completes.
 *
 * The server subscribes to `events` once, when it starts, and keeps the run's events so far in a
 * bounded replay log (servers/event-server/replay-log.ts): a subscriber that connects late first
 * gets the replay, then the live events, with nothing missing or repeated at the seam (the
 * snapshot and the switch to live happen in one synchronous step). Every `event` frame carries
 * `seq`, the event's position in the stream; an observer that comes back subscribes with
 * `after: <its last seq>` and gets only what it has not seen. Start the server before the run,
 * and `waitForSubscribers` to hold the run until observers are there.
 *
 * `close()` drains: it refuses new connections, lets every subscriber receive its backlog and
 * `end` (bounded by `drainMs`), and only then closes the listener, so a slow subscriber still gets
 * every lossless event of a run that has finished.
 *
 * `startEventServer` composes the shared listener (../listener/ws-listener.ts) with the stream's
 * state (event-hub.ts); `EventServer` is the handle that drains and closes them.
 */
import type { Observable, Subscription } from 'rxjs';
import { FrameBudget } from '../listener/frame-budget.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { EVENT_LOSSY_BUFFER_BYTES, EVENT_MAX_BUFFERED_BYTES, EVENT_SERVER_MAX_PAYLOAD, SERVER_HEARTBEAT_MS } from '../../transport/wire/limits.ts';
import { listenWebSocket, type WsListener, type WsListenOptions } from '../listener/ws-listener.ts';
import { COMPLETED, EventHub, FAILED } from './event-hub.ts';
import {
  EVENT_DRAIN_TIMEOUT_MS,
  EVENT_FRAME_BUDGET,
  EVENT_MAX_QUEUED_BYTES,
  EVENT_MAX_QUEUED_FRAMES,
  EVENT_PAUSE_BUFFERED_BYTES,
  EVENT_REPLAY_BYTES,
  EVENT_SOCKET_HIGH_WATER_BYTES,
} from './limits.ts';
import type { ReplayStats } from './replay-log.ts';
import type { WaitForSubscribersOptions, WaitForSubscribersResult } from './subscriber-waits.ts';

export type { WaitForSubscribersOptions, WaitForSubscribersResult } from './subscriber-waits.ts';

/** Rollout events, or a training run's (which include them). */
type StreamEvent = TrainingEvent;

/** Options of `startEventServer`. */
export interface EventServerOptions {
  /** TCP port; 0 picks a free one (read it from the handle). */
  readonly port: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /** The run's events (a system's `events`); subscribed once, when the server starts. */
  readonly events: Observable<StreamEvent>;
  /** Bearer token every observer must present; none means no authentication. */
  readonly token?: string;
  /** Browser origins allowed to subscribe besides this server's own loopback pages (`*`: any). Default: none. */
  readonly allowOrigins?: readonly string[];
  /** Ping interval (ms); 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  /** Largest inbound frame (bytes). Default 64 KiB. */
  readonly maxPayload?: number;
  /** Live backlog bytes above which a subscriber misses high-rate events. Default 1 MiB. */
  readonly lossyBufferBytes?: number;
  /** Live backlog bytes above which a subscriber is closed with 1008. Default 16 MiB. */
  readonly maxBufferedBytes?: number;
  /** Encoded bytes of the run's events kept for late subscribers. Default 32 MiB. */
  readonly replayBytes?: number;
  /** The longest `close()` waits for subscribers to receive their backlog (ms). Default 10 000. */
  readonly drainMs?: number;
  /**
   * Frames per second over all connections, shared round-robin, with at most `sliceMs` of frame
   * work per event-loop turn; `false` disables. Default `EVENT_FRAME_BUDGET` (1 000/s).
   */
  readonly frameBudget?: { readonly perSecond: number; readonly burst: number; readonly sliceMs: number } | false;
  /** Connection events as JSON lines (`--log-json`). */
  readonly log?: OpsLog;
}

/** Counters of a running event server (`EventServerHandle.stats`). */
export interface EventServerStats {
  readonly connections: number;
  readonly subscribers: number;
  /** High-rate events skipped for slow subscribers since start. */
  readonly dropped: number;
  /** Frames received since start. */
  readonly frames: number;
  readonly replay: ReplayStats;
}

/** A running event server (`startEventServer`). */
export interface EventServerHandle {
  /** The port it listens on (the one the OS picked for `port: 0`). */
  readonly port: number;
  /** `ws://host:port` to hand to `observeRun` or `actorgym dashboard --connect`. */
  readonly url: string;
  /** Resolves once `count` subscribers are subscribed at the same time, or when the wait ends otherwise. */
  waitForSubscribers(count: number, options?: WaitForSubscribersOptions): Promise<WaitForSubscribersResult>;
  /** Drains every subscriber (bounded by `drainMs`), then closes; idempotent. */
  close(): Promise<void>;
  /** Connections, subscribers, events dropped for slow subscribers, and the replay log's size. */
  stats(): EventServerStats;
}

/**
 * Starts an event server: serves `events` to any number of observers over WebSocket
 * (`observeRun`, `actorgym dashboard --connect`). Subscribes to `events` at once, so nothing the
 * run emits from here on is missed; late observers get the replay first. Resolves once listening;
 * rejects (and unsubscribes) if the port cannot be bound.
 *
 * @example
 * const server = await startEventServer({ port: 8200, events: training.events });
 * await server.waitForSubscribers(1, { timeoutMs: 30_000 });
 * await training.run();
 * await server.close(); // observers get the rest of the stream and `end`
 */
export async function startEventServer(options: EventServerOptions): Promise<EventServerHandle> {
  const frameBudget = options.frameBudget ?? EVENT_FRAME_BUDGET;
  const budget = frameBudget === false ? undefined : new FrameBudget({ ...frameBudget, maxQueuedFrames: EVENT_MAX_QUEUED_FRAMES, maxQueuedBytes: EVENT_MAX_QUEUED_BYTES });
  const hub = new EventHub(
    options.replayBytes ?? EVENT_REPLAY_BYTES,
    {
      lossyBytes: options.lossyBufferBytes ?? EVENT_LOSSY_BUFFER_BYTES,
      maxBytes: options.maxBufferedBytes ?? EVENT_MAX_BUFFERED_BYTES,
      highWaterBytes: EVENT_SOCKET_HIGH_WATER_BYTES,
    },
    { budget, pauseBufferedBytes: EVENT_PAUSE_BUFFERED_BYTES },
  );
  // Subscribed before listening, so nothing the run emits from here on is missed.
  const source = options.events.subscribe({
    next: (event) => hub.record(event),
    complete: () => hub.end(COMPLETED),
    error: () => hub.end(FAILED),
  });
  const listener = await listenWebSocket(listenOptions(options, hub), (ws, _request, socket) => hub.accept(ws, socket)).catch((error: unknown) => {
    source.unsubscribe();
    budget?.stop();
    throw error;
  });
  return new EventServer(listener, hub, source, options.drainMs ?? EVENT_DRAIN_TIMEOUT_MS, budget);
}

function listenOptions(options: EventServerOptions, hub: EventHub): WsListenOptions {
  return {
    port: options.port,
    host: options.host ?? '127.0.0.1',
    token: options.token,
    heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS,
    maxPayload: options.maxPayload ?? EVENT_SERVER_MAX_PAYLOAD,
    ...(options.allowOrigins !== undefined ? { allowOrigins: options.allowOrigins } : {}),
    ...(options.log !== undefined ? { log: options.log } : {}),
    health: () => hub.health(),
  };
}

class EventServer implements EventServerHandle {
  #closing: Promise<void> | undefined;

  constructor(
    private readonly listener: WsListener,
    private readonly hub: EventHub,
    private readonly source: Subscription,
    private readonly drainMs: number,
    private readonly budget: FrameBudget | undefined,
  ) {}

  get port(): number {
    return this.listener.port;
  }

  get url(): string {
    return this.listener.url;
  }

  waitForSubscribers(count: number, options?: WaitForSubscribersOptions): Promise<WaitForSubscribersResult> {
    if (this.#closing !== undefined) return Promise.resolve({ ok: false, code: 'CLOSED', subscribers: this.hub.subscribers });
    return this.hub.waits.wait(count, options);
  }

  close(): Promise<void> {
    this.#closing ??= this.drain();
    return this.#closing;
  }

  stats(): EventServerStats {
    return this.hub.stats();
  }

  /** Refuses new observers, lets every subscriber receive its backlog (bounded by `drainMs`), then closes. */
  private async drain(): Promise<void> {
    this.listener.drain();
    this.hub.shutDown();
    await this.hub.drained(this.drainMs);
    this.source.unsubscribe();
    this.hub.waits.close();
    await this.listener.close();
    this.budget?.stop();
  }
}
