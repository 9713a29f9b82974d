/**
 * Serves a run's event stream over WebSocket (docs/protocol.md#event-stream). Each observer
 * sends `subscribe` (optionally naming event types) and gets `event` frames, then `end` and a
 * normal close when the run's stream completes. Each connection holds its own subscription to
 * `events`, cancelled when the connection closes; pass a hot stream (a Subject or `share()`).
 */
import type { Observable, Subscription } from 'rxjs';
import { WebSocket, type RawData } from 'ws';
import type { TrainingEvent } from '../streams/training-events.ts';
import { encodeError } from '../streams/wire/env-codec.ts';
import { decodeSubscribe, encodeEvent, END_FRAME, SUBSCRIBED_FRAME } from '../streams/wire/event-codec.ts';
import {
  CloseCode,
  EVENT_LOSSY_BUFFER_BYTES,
  EVENT_MAX_BUFFERED_BYTES,
  EVENT_SERVER_MAX_PAYLOAD,
  SERVER_HEARTBEAT_MS,
} from '../streams/wire/limits.ts';
import { listenWebSocket } from '../streams/wire/ws-server.ts';

/** Rollout events, or a training run's (which include them). */
type StreamEvent = TrainingEvent;

export interface EventServerOptions {
  readonly port: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  readonly events: Observable<StreamEvent>;
  readonly token?: string;
  /** Ping interval (ms); 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  /** Largest inbound frame (bytes). Default 64 KiB. */
  readonly maxPayload?: number;
  /** Buffered bytes above which a subscriber misses high-rate events. Default 1 MiB. */
  readonly lossyBufferBytes?: number;
  /** Buffered bytes above which a subscriber is closed with 1008. Default 16 MiB. */
  readonly maxBufferedBytes?: number;
}

export interface EventServerStats {
  readonly connections: number;
  readonly subscribers: number;
  /** High-rate events skipped for slow subscribers since start. */
  readonly dropped: number;
}

export interface EventServerHandle {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
  stats(): EventServerStats;
}

/**
 * Lossy on purpose: per-turn events are a live view, and a slow dashboard should skip some
 * rather than fall ever further behind. Every other type (`episode.started`, `episode.finished`,
 * `run.*`, `horizon.changed`) is lossless: observers count on each one. Typed as strings so
 * `episode.state` is covered whenever the run emits it.
 */
const LOSSY_TYPES: ReadonlySet<string> = new Set(['agent.acted', 'env.stepped', 'episode.state']);

export async function startEventServer(options: EventServerOptions): Promise<EventServerHandle> {
  const lossyBytes = options.lossyBufferBytes ?? EVENT_LOSSY_BUFFER_BYTES;
  const maxBytes = options.maxBufferedBytes ?? EVENT_MAX_BUFFERED_BYTES;
  const subscriptions = new Map<WebSocket, Subscription | undefined>();
  let dropped = 0;
  // Subscribers of a hot stream get the same event one after the other: serialise it once.
  let lastEvent: StreamEvent | undefined;
  let lastText = '';
  const textOf = (event: StreamEvent): string => {
    if (event !== lastEvent) {
      lastEvent = event;
      lastText = encodeEvent(event);
    }
    return lastText;
  };

  /** Sends unless the peer has let `maxBufferedBytes` pile up, in which case it is closed. */
  const send = (ws: WebSocket, text: string): void => {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > maxBytes) ws.close(CloseCode.POLICY, 'subscriber too slow');
    else ws.send(text);
  };

  const deliver = (ws: WebSocket, event: StreamEvent): void => {
    if (LOSSY_TYPES.has(event.type) && ws.bufferedAmount > lossyBytes) {
      dropped++;
      return;
    }
    send(ws, textOf(event));
  };

  const subscribe = (ws: WebSocket, data: RawData, isBinary: boolean): void => {
    const frame = decodeSubscribe(data, isBinary);
    if (!frame.ok) return send(ws, encodeError(frame.id, frame.error));
    if (subscriptions.get(ws) !== undefined) {
      const error = { code: 'BAD_FRAME', message: 'this connection is already subscribed' } as const;
      return send(ws, encodeError(frame.value.id ?? null, error));
    }
    const types = frame.value.types === undefined ? undefined : new Set<string>(frame.value.types);
    send(ws, SUBSCRIBED_FRAME);
    const subscription = options.events.subscribe({
      next: (event) => {
        if (types === undefined || types.has(event.type)) deliver(ws, event);
      },
      complete: () => {
        if (ws.readyState !== WebSocket.OPEN) return;
        ws.send(END_FRAME);
        ws.close(CloseCode.NORMAL, 'end of stream');
      },
      error: () => ws.close(CloseCode.INTERNAL, 'event source failed'),
    });
    subscriptions.set(ws, subscription);
  };

  const listener = await listenWebSocket(
    {
      port: options.port,
      host: options.host ?? '127.0.0.1',
      token: options.token,
      heartbeatMs: options.heartbeatMs ?? SERVER_HEARTBEAT_MS,
      maxPayload: options.maxPayload ?? EVENT_SERVER_MAX_PAYLOAD,
    },
    (ws) => {
      subscriptions.set(ws, undefined);
      ws.on('message', (data: RawData, isBinary: boolean) => subscribe(ws, data, isBinary));
      ws.once('close', () => {
        subscriptions.get(ws)?.unsubscribe();
        subscriptions.delete(ws);
      });
    },
  );

  return {
    port: listener.port,
    url: listener.url,
    close: () => listener.close(),
    stats: () => {
      let subscribers = 0;
      for (const subscription of subscriptions.values()) if (subscription !== undefined) subscribers++;
      return { connections: subscriptions.size, subscribers, dropped };
    },
  };
}
