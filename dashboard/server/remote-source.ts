/**
 * Feeds a dashboard run from an event server on another machine (`actorgym dashboard --connect
 * ws://…`; docs/protocol.md#event-stream). The connection is kept: when it drops before the
 * server's `end`, the run shows why and reconnects every `reconnectMs`, subscribing `after` the
 * last event it applied, so the server's replay fills the gap without repeating anything. A
 * refused token is not retried. Invalid frames are counted and skipped.
 */
import { WebSocket, type RawData } from 'ws';
import { CONNECT_TIMEOUT_MS } from '../../transport/wire/limits.ts';
import { openWebSocket, refusalStatus } from '../../transport/wire/ws-connect.ts';
import type { DashboardRun } from './dashboard-run.ts';
import { DashboardError } from './errors.ts';
import { decodeRemoteFrame } from './remote-frames.ts';

export interface RemoteSourceOptions {
  readonly url: string;
  readonly token?: string | undefined;
  /** Wait before reconnecting after a drop (ms). Default 5 000. */
  readonly reconnectMs?: number;
  /** Opening handshake deadline (ms). Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Largest inbound frame (bytes). Default 16 MiB (a run.finished summary lists every episode). */
  readonly maxPayload?: number;
  /** Told about drops and invalid frames, for the terminal. */
  readonly warn?: (message: string) => void;
}

export interface RemoteSource {
  /** Invalid frames skipped so far. */
  readonly badFrames: number;
  close(): void;
}

/** Throws BAD_URL unless `url` is a ws:// or wss:// URL. */
export function checkEventServerUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DashboardError('BAD_URL', `--connect wants an event server URL like ws://HOST:PORT, got "${url}"`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new DashboardError('BAD_URL', `--connect wants a ws:// or wss:// URL (an event server, e.g. \`actorgym train --events-port P\`), got "${url}"`);
  }
  return parsed;
}

export function connectRemoteSource(run: DashboardRun, options: RemoteSourceOptions): RemoteSource {
  checkEventServerUrl(options.url);
  const warn = options.warn ?? (() => {});
  const reconnectMs = options.reconnectMs ?? 5_000;
  let ws: WebSocket | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let badFrames = 0;
  let lastBad = '';
  /** The last event's position in the run's stream, for resuming after a drop. */
  let lastSeq: number | undefined;

  const connect = (): void => {
    let ended = false;
    run.setStatus(`connecting to ${options.url}…`, true);
    const socket = openWebSocket(options.url, {
      token: options.token,
      connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      maxPayload: options.maxPayload ?? 16 * 1024 * 1024,
    });
    ws = socket;
    let lastError = '';
    socket.on('error', (error: Error) => (lastError = error.message));
    socket.once('open', () => {
      if (lastSeq === undefined) {
        run.board.clearRunning();
        socket.send('{"op":"subscribe"}');
      } else socket.send(JSON.stringify({ op: 'subscribe', after: lastSeq }));
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const frame = decodeRemoteFrame(data, isBinary);
      switch (frame.kind) {
        case 'event':
          if (frame.seq !== undefined) lastSeq = frame.seq;
          return run.apply(frame.event);
        case 'subscribed':
          return run.setStatus(`connected to ${options.url}`, true);
        case 'end':
          ended = true;
          return run.setStatus('the run ended', false);
        case 'error':
          return warn(`${options.url}: the event server answered ${frame.message}`);
        case 'bad':
          badFrames++;
          // One line per distinct problem, not per frame.
          if (frame.message !== lastBad) warn(`${options.url}: skipped an invalid frame (${frame.message}); ${badFrames} so far`);
          lastBad = frame.message;
          return;
      }
    });
    socket.once('close', (code: number, reason: Buffer) => {
      if (closed || ended) return;
      if (refusalStatus(socket) === 401) {
        run.setStatus(`error: ${options.url} refused the token (HTTP 401); pass --token`, false);
        warn(`${options.url}: UNAUTHORIZED: the event server refused the token (pass --token or ACTORGYM_TOKEN)`);
        return;
      }
      const why = reason.length > 0 ? reason.toString() : lastError || `closed with code ${code}`;
      run.setStatus(`disconnected (${why}); retrying every ${Math.round(reconnectMs / 1000)} s`, true);
      warn(`${options.url}: ${why}; retrying in ${Math.round(reconnectMs / 1000)} s`);
      retry = setTimeout(connect, reconnectMs);
      retry.unref();
    });
  };

  connect();
  return {
    get badFrames() {
      return badFrames;
    },
    close() {
      closed = true;
      clearTimeout(retry);
      if (ws?.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws?.close(1000);
    },
  };
}
