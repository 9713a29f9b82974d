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
 */
import type { Observable, Subscription } from 'rxjs';
import type { RawData, WebSocket } from 'ws';
import type { HealthState } from '../listener/health.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { encodeError } from '../../transport/wire/env-codec.ts';
import { decodeSubscribe, encodeEvent, encodeSubscribed, END_FRAME } from '../../transport/wire/event-codec.ts';
import {
  CloseCode,
  EVENT_LOSSY_BUFFER_BYTES,
  EVENT_MAX_BUFFERED_BYTES,
  EVENT_SERVER_MAX_PAYLOAD,
  SERVER_HEARTBEAT_MS,
} from '../../transport/wire/limits.ts';
import { listenWebSocket } from '../listener/ws-listener.ts';
import { isLossy } from './delivery-classes.ts';
import { EVENT_DRAIN_TIMEOUT_MS, EVENT_REPLAY_BYTES, EVENT_SOCKET_HIGH_WATER_BYTES } from './limits.ts';
import { ReplayLog, type ReplayEntry, type ReplayStats } from './replay-log.ts';
import { Subscriber, type StreamEnding, type SubscriberLimits } from './subscriber.ts';
import { SubscriberWaits, type WaitForSubscribersOptions, type WaitForSubscribersResult } from './subscriber-waits.ts';

export type { WaitForSubscribersOptions, WaitForSubscribersResult } from './subscriber-waits.ts';

/** Rollout events, or a training run's (which include them). */
type StreamEvent = TrainingEvent;

export interface EventServerOptions {
  readonly port: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  readonly events: Observable<StreamEvent>;
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
  /** Connection events as JSON lines (`--log-json`). */
  readonly log?: OpsLog;
}

export interface EventServerStats {
  readonly connections: number;
  readonly subscribers: number;
  /** High-rate events skipped for slow subscribers since start. */
  readonly dropped: number;
  readonly replay: ReplayStats;
}

export interface EventServerHandle {
  readonly port: number;
  readonly url: string;
  /** Resolves once `count` subscribers are subscribed at the same time, or when the wait ends otherwise. */
  waitForSubscribers(count: number, options?: WaitForSubscribersOptions): Promise<WaitForSubscribersResult>;
  /** Drains every subscriber (bounded by `drainMs`), then closes; idempotent. */
  close(): Promise<void>;
  stats(): EventServerStats;
}

const COMPLETED: StreamEnding = { frame: END_FRAME, code: CloseCode.NORMAL, reason: 'end of stream' };
const FAILED: StreamEnding = { code: CloseCode.INTERNAL, reason: 'event source failed' };
const SHUTTING_DOWN: StreamEnding = { code: CloseCode.GOING_AWAY, reason: 'server shutting down' };

export async function startEventServer(options: EventServerOptions): Promise<EventServerHandle> {
  const limits: SubscriberLimits = {
    lossyBytes: options.lossyBufferBytes ?? EVENT_LOSSY_BUFFER_BYTES,
    maxBytes: options.maxBufferedBytes ?? EVENT_MAX_BUFFERED_BYTES,
    highWaterBytes: EVENT_SOCKET_HIGH_WATER_BYTES,
  };
  const drainMs = options.drainMs ?? EVENT_DRAIN_TIMEOUT_MS;
  const replay = new ReplayLog(options.replayBytes ?? EVENT_REPLAY_BYTES);
  const connections = new Map<WebSocket, Subscriber | undefined>();
  const subscribers = new Set<Subscriber>();
  const waits = new SubscriberWaits(() => subscribers.size);
  let droppedByClosed = 0;
  let seq = 0;
  let ended: StreamEnding | undefined;
  let closing: Promise<void> | undefined;

  const endAll = (ending: StreamEnding) => {
    ended = ending;
    for (const subscriber of subscribers) subscriber.finish(ending);
  };
  // Subscribed before listening, so nothing the run emits from here on is missed.
  const source: Subscription = options.events.subscribe({
    next: (event) => {
      const text = encodeEvent(event, seq);
      const entry: ReplayEntry = { seq: seq++, type: event.type, text, bytes: Buffer.byteLength(text), lossy: isLossy(event.type) };
      replay.append(entry);
      for (const subscriber of subscribers) subscriber.push(entry);
    },
    complete: () => endAll(COMPLETED),
    error: () => endAll(FAILED),
  });

  const subscribe = (ws: WebSocket, data: RawData, isBinary: boolean): void => {
    const frame = decodeSubscribe(data, isBinary);
    if (!frame.ok) return void ws.send(encodeError(frame.id, frame.error));
    if (connections.get(ws) !== undefined) {
      const error = { code: 'BAD_FRAME', message: 'this connection is already subscribed' } as const;
      return void ws.send(encodeError(frame.value.id ?? null, error));
    }
    const types = frame.value.types === undefined ? undefined : new Set<string>(frame.value.types);
    // An `after` at or past the next position is from another stream (a restarted run): replay it all.
    const after = frame.value.after !== undefined && frame.value.after < seq ? frame.value.after : undefined;
    const snapshot = replay.snapshot(types, after);
    const subscriber = new Subscriber(ws, types, snapshot, limits);
    connections.set(ws, subscriber);
    subscribers.add(subscriber);
    ws.send(encodeSubscribed(snapshot.length, replay.missed(types, after)));
    subscriber.start();
    if (ended !== undefined) subscriber.finish(ended);
    else if (closing !== undefined) subscriber.finish(SHUTTING_DOWN);
    waits.changed();
  };

  const health = (): HealthState => ({
    ready: true,
    detail: { subscribers: subscribers.size, replayEvents: replay.stats().events, stream: ended === undefined ? 'live' : 'ended' },
  });

  const listener = await listenWebSocket(
    {
      port: options.port,
      host: options.host ?? '127.0.0.1',
      token: options.token,
      heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS,
      maxPayload: options.maxPayload ?? EVENT_SERVER_MAX_PAYLOAD,
      ...(options.allowOrigins !== undefined ? { allowOrigins: options.allowOrigins } : {}),
      ...(options.log !== undefined ? { log: options.log } : {}),
      health,
    },
    (ws) => {
      connections.set(ws, undefined);
      ws.on('message', (data: RawData, isBinary: boolean) => subscribe(ws, data, isBinary));
      ws.once('close', () => {
        const subscriber = connections.get(ws);
        connections.delete(ws);
        if (subscriber === undefined) return;
        subscribers.delete(subscriber);
        droppedByClosed += subscriber.dropped;
        waits.changed();
      });
    },
  ).catch((error: unknown) => {
    source.unsubscribe();
    throw error;
  });

  const drain = async (): Promise<void> => {
    listener.drain();
    for (const subscriber of subscribers) subscriber.finish(ended ?? SHUTTING_DOWN);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
    await Promise.race([Promise.all([...subscribers].map((subscriber) => subscriber.closed)), timeout]);
    clearTimeout(timer);
    source.unsubscribe();
    waits.close();
    await listener.close();
  };

  return {
    port: listener.port,
    url: listener.url,
    waitForSubscribers: (count, waitOptions) => (closing !== undefined ? Promise.resolve({ ok: false, code: 'CLOSED', subscribers: subscribers.size }) : waits.wait(count, waitOptions)),
    close() {
      closing ??= drain();
      return closing;
    },
    stats: () => {
      let dropped = droppedByClosed;
      for (const subscriber of subscribers) dropped += subscriber.dropped;
      return { connections: connections.size, subscribers: subscribers.size, dropped, replay: replay.stats() };
    },
  };
}
