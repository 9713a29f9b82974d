/**
 * The WebSocket listener shared by the env server and the event server: an HTTP server whose
 * upgrade handler checks the bearer token (401 before any WebSocket exists), a ws server with
 * explicit limits, a ping/pong heartbeat, and a shutdown that closes every peer with 1001.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { requestToken, tokenMatches } from './auth.ts';
import type { WireError } from './errors.ts';
import { CloseCode } from './limits.ts';

export interface WsListenOptions {
  readonly port: number;
  readonly host: string;
  readonly token: string | undefined;
  /** Ping interval; a peer that has not answered the previous ping is terminated. 0 disables. */
  readonly heartbeatMs: number;
  readonly maxPayload: number;
}

export interface WsListener {
  readonly port: number;
  readonly url: string;
  /** Closes every peer with 1001, waits for them (terminating stragglers), then stops listening. */
  close(): Promise<void>;
}

/** How long peers get to answer the closing handshake before their sockets are destroyed. */
const CLOSE_GRACE_MS = 1_000;

export async function listenWebSocket(
  options: WsListenOptions,
  onConnection: (ws: WebSocket, request: IncomingMessage, socket: Duplex) => void,
): Promise<WsListener> {
  let closing: Promise<void> | undefined;
  const http = createServer((_request, response) => {
    response.writeHead(426, { 'Content-Type': 'text/plain', Upgrade: 'websocket' });
    response.end('this is a WebSocket endpoint; see docs/protocol.md\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false });
  const awaitingPong = new WeakSet<WebSocket>();
  function onPong(this: WebSocket) {
    awaitingPong.delete(this);
  }

  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', ignore);
    if (closing !== undefined) return void socket.destroy();
    if (options.token !== undefined && !tokenMatches(requestToken(request), options.token)) {
      return refuseUnauthorized(socket);
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', ignore); // ws closes the socket itself after an error; 'close' follows
      ws.on('pong', onPong);
      onConnection(ws, request, socket);
    });
  });
  http.on('error', ignore);
  wss.on('error', ignore);

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  // Started only once listening, so a failed listen leaves no timer behind.
  const heartbeat =
    options.heartbeatMs > 0
      ? setInterval(() => {
          for (const ws of wss.clients) {
            if (awaitingPong.has(ws)) {
              ws.terminate();
              continue;
            }
            awaitingPong.add(ws);
            ws.ping();
          }
        }, options.heartbeatMs)
      : undefined;
  heartbeat?.unref();
  const port = (http.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    port,
    url: `ws://${host}:${port}`,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };

  async function shutdown(): Promise<void> {
    clearInterval(heartbeat);
    const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
    const peers = [...wss.clients].map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.close(CloseCode.GOING_AWAY, 'server shutting down');
        }),
    );
    const force = setTimeout(() => {
      for (const ws of wss.clients) ws.terminate();
    }, CLOSE_GRACE_MS);
    await Promise.all(peers);
    clearTimeout(force);
    wss.close();
    http.closeAllConnections();
    await stopped;
  }
}

const UNAUTHORIZED_BODY = JSON.stringify({
  error: { code: 'UNAUTHORIZED', message: 'missing or wrong bearer token' } satisfies WireError,
});

function refuseUnauthorized(socket: Duplex): void {
  socket.end(
    'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nConnection: close\r\n' +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(UNAUTHORIZED_BODY)}\r\n\r\n` +
      UNAUTHORIZED_BODY,
  );
}

function ignore(): void {}
