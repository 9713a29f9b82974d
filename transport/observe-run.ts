import { Observable } from 'rxjs';
import { WebSocket, type RawData } from 'ws';
import type { TrainingEvent } from '../streams/training-events.ts';
import type { WireErrorCode } from './wire/errors.ts';
import { decodeEventServerFrame, encodeSubscribe } from './wire/event-codec.ts';
import { CLIENT_MAX_PAYLOAD, CloseCode, CONNECT_TIMEOUT_MS } from './wire/limits.ts';
import { openWebSocket, refusalStatus } from './wire/ws-connect.ts';

/**
 * Options of `observeRun`: the bearer token, which event types to receive, and the connection's
 * limits.
 */
export interface ObserveRunOptions {
  /** Bearer token, sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Only these event types; all when absent. */
  readonly types?: readonly TrainingEvent['type'][];
  /** Opening handshake deadline (ms). Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Largest inbound frame (bytes). Default 16 MiB. */
  readonly maxPayload?: number;
}

/**
 * Why `observeRun`'s Observable errored: the server refused the token, the connection closed
 * without an `end` frame, or a frame broke the protocol.
 */
export type ObserveRunErrorCode =
  /** The server refused the token (HTTP 401). */
  | 'UNAUTHORIZED'
  /** The connection could not be opened or closed before `end`. */
  | 'CLOSED'
  /** The server sent a frame that is not valid, or an error frame (its code is `wireCode`). */
  | 'PROTOCOL_ERROR';

/** The error `observeRun`'s Observable ends with; `code` says why (`ObserveRunErrorCode`). */
export class ObserveRunError extends Error {
  override readonly name = 'ObserveRunError';
  constructor(
    readonly code: ObserveRunErrorCode,
    message: string,
    /** The WebSocket close code, when the connection closed. */
    readonly closeCode?: number,
    /** The server's error code, for an error frame. */
    readonly wireCode?: WireErrorCode,
  ) {
    super(message);
  }
}

/**
 * A run's events from an event server (servers/event-server/event-server.ts), as a cold Observable: each
 * subscription opens its own WebSocket, gets the run from its start (the server's replay, then
 * the live events, each once), completes on the server's `end` frame, errors when the
 * connection closes without one, and closes the socket when unsubscribed.
 *
 * @example
 * ```ts
 * observeRun('ws://127.0.0.1:8200', { types: ['episode.finished'] })
 *   .subscribe((event) => console.log(event.episodeId, event.outcome));
 * ```
 */
export function observeRun(url: string, options: ObserveRunOptions = {}): Observable<TrainingEvent> {
  return new Observable<TrainingEvent>((subscriber) => {
    const ws = openWebSocket(url, {
      token: options.token,
      connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      maxPayload: options.maxPayload ?? CLIENT_MAX_PAYLOAD,
    });
    let finished = false;
    let closeCode: number = CloseCode.NORMAL;
    let lastError = '';
    const fail = (error: ObserveRunError, code: number): void => {
      finished = true;
      closeCode = code;
      subscriber.error(error);
    };

    ws.once('open', () => ws.send(encodeSubscribe(options.types)));
    ws.on('error', (error: Error) => (lastError = error.message));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (finished) return;
      const frame = decodeEventServerFrame(data, isBinary);
      if (!frame.ok) return fail(new ObserveRunError('PROTOCOL_ERROR', frame.error.message), CloseCode.POLICY);
      switch (frame.value.op) {
        case 'event':
          return subscriber.next(frame.value.event);
        case 'end':
          finished = true;
          return subscriber.complete();
        case 'error': {
          const { code, message } = frame.value.error;
          return fail(new ObserveRunError('PROTOCOL_ERROR', `${code}: ${message}`, undefined, code), CloseCode.NORMAL);
        }
        case 'subscribed':
          return;
      }
    });
    ws.once('close', (code: number, reason: Buffer) => {
      if (finished) return;
      finished = true;
      if (refusalStatus(ws) === 401) {
        subscriber.error(new ObserveRunError('UNAUTHORIZED', `${url} refused the bearer token (HTTP 401)`));
        return;
      }
      const why = reason.length > 0 ? reason.toString() : lastError || 'connection lost';
      subscriber.error(new ObserveRunError('CLOSED', `event stream closed before its end: ${why} (code ${code})`, code));
    });

    return () => {
      finished = true;
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else if (ws.readyState === WebSocket.OPEN) ws.close(closeCode);
    };
  });
}
