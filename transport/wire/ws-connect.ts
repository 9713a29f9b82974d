/**
 * Opening a client WebSocket with the transport's explicit settings: bearer token in the
 * `Authorization` header, no compression (frames are small and latency-bound), an explicit
 * `maxPayload` and handshake deadline, and an error listener from the first moment.
 */
import { WebSocket } from 'ws';
import { authHeaders } from './auth.ts';

export interface OpenOptions {
  readonly token?: string | undefined;
  readonly connectTimeoutMs: number;
  readonly maxPayload: number;
}

const refusals = new WeakMap<WebSocket, number>();

export function openWebSocket(url: string, options: OpenOptions): WebSocket {
  const ws = new WebSocket(url, {
    headers: authHeaders(options.token),
    perMessageDeflate: false,
    maxPayload: options.maxPayload,
    handshakeTimeout: options.connectTimeoutMs,
  });
  // Errors are always followed by 'close', where callers act; an unhandled 'error' would crash.
  ws.on('error', ignore);
  // Remember an HTTP refusal (401) so callers can tell "unauthorized" from "unreachable".
  ws.once('unexpected-response', (_request, response) => {
    refusals.set(ws, response.statusCode ?? 0);
    response.resume();
    ws.terminate();
  });
  return ws;
}

/** The HTTP status with which the server refused the upgrade, if it did. */
export function refusalStatus(ws: WebSocket): number | undefined {
  return refusals.get(ws);
}

/** Resolves when `ws` is open; rejects with the handshake failure (refusal status or network error). */
export function whenOpen(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    const onError = (error: Error) => (failure = error);
    const onOpen = () => {
      ws.off('error', onError).off('close', onClose);
      resolve();
    };
    const onClose = () => {
      ws.off('error', onError).off('open', onOpen);
      reject(failure ?? new Error('connection closed during the handshake'));
    };
    ws.on('error', onError).once('open', onOpen).once('close', onClose);
  });
}

function ignore(): void {}
