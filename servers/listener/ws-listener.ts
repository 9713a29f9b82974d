/**
 * The WebSocket listener shared by the env server and the event server: an HTTP server whose
 * upgrade handler refuses, before any WebSocket exists, a draining server (503), a browser page
 * of a foreign origin (403) and a missing or wrong bearer token (401); a ws server with explicit
 * limits; a deadline on every TCP connection until it has upgraded (idle sockets cost a file
 * descriptor each and would otherwise stay forever); a cap on connections; `/healthz` and
 * `/readyz`; a ping/pong heartbeat; and a shutdown that closes every peer with 1001.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { answerHealth, type HealthState } from './health.ts';
import { requestToken, tokenMatches } from '../../transport/wire/auth.ts';
import type { WireError, WireErrorCode } from '../../transport/wire/errors.ts';
import { CloseCode, SERVER_CLOSE_GRACE_MS, SERVER_HANDSHAKE_TIMEOUT_MS, SERVER_MAX_CONNECTIONS } from '../../transport/wire/limits.ts';
import { originAllowed } from '../../transport/wire/origin.ts';

/**
 * Where connection events go: the same shape as servers/listener/ops-log.ts's `OpsLog`, declared here so
 * that the transport room does not import the actors that use it.
 */
export type ConnectionLog = (event: string, fields?: Readonly<Record<string, string | number | boolean | undefined>>) => void;

export interface WsListenOptions {
  readonly port: number;
  readonly host: string;
  readonly token: string | undefined;
  /** Ping interval; a peer that has not answered the previous ping is terminated. 0 disables. */
  readonly heartbeatMs: number;
  readonly maxPayload: number;
  /**
   * Browser origins allowed to connect besides this server's own loopback pages (`*`: any).
   * Requests without `Origin` (programs) always pass. Default: none.
   */
  readonly allowOrigins?: readonly string[];
  /** A connection not upgraded (or not done with its HTTP request) within this many ms is destroyed. Default 10 000. */
  readonly handshakeTimeoutMs?: number;
  /** TCP connections at once; more are closed when accepted. Default 512. */
  readonly maxConnections?: number;
  /** The owner's part of readiness (e.g. an instance cap) and figures for the health probes. */
  readonly health?: () => HealthState;
  /** Connection events as JSON lines (`--log-json`). */
  readonly log?: ConnectionLog;
}

/** Who is on the other end, for log lines. */
export interface PeerInfo {
  readonly peer: string;
  readonly origin: string | undefined;
}

/** What the owner of a connection adds to its `connection.closed` log line (e.g. the instances it held). */
export interface ConnectionHooks {
  closeDetail?(): Readonly<Record<string, string | number | boolean>>;
}

export interface WsListener {
  readonly port: number;
  readonly url: string;
  /** True once `drain` or `close` was called. */
  readonly draining: boolean;
  /** Stops accepting: upgrades get 503 `SERVER_DRAINING` and `/readyz` 503; open peers stay. */
  drain(): void;
  /** TCP connections open now, upgraded or not. */
  connections(): number;
  /** Closes every peer with 1001, waits for them (terminating stragglers), then stops listening. */
  close(): Promise<void>;
}

export async function listenWebSocket(
  options: WsListenOptions,
  onConnection: (ws: WebSocket, request: IncomingMessage, socket: Duplex, peer: PeerInfo) => ConnectionHooks | void,
): Promise<WsListener> {
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? SERVER_HANDSHAKE_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? SERVER_MAX_CONNECTIONS;
  const allowOrigins = options.allowOrigins ?? [];
  const log = options.log ?? (() => {});
  let draining = false;
  let closing: Promise<void> | undefined;
  let open = 0;
  /** Handshake deadlines of connections that have not upgraded yet. */
  const deadlines = new Map<Duplex, NodeJS.Timeout>();
  const settle = (socket: Duplex) => {
    clearTimeout(deadlines.get(socket));
    deadlines.delete(socket);
  };

  const readiness = (): HealthState => {
    const owner = options.health?.();
    const detail = { connections: open, ...owner?.detail };
    if (draining) return { ready: false, reason: 'draining', detail };
    if (open >= maxConnections) return { ready: false, reason: 'at the connection limit', detail };
    return owner === undefined ? { ready: true, detail } : { ...owner, detail };
  };

  const http = createServer(
    // node's own header and request deadlines back the per-connection one below for HTTP
    // requests; its sweep runs often enough for a short deadline to hold.
    {
      headersTimeout: handshakeTimeoutMs,
      requestTimeout: handshakeTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, handshakeTimeoutMs / 4)),
    },
    (request: IncomingMessage, response: ServerResponse) => {
      if (answerHealth(request, response, readiness)) return;
      response.writeHead(426, { 'Content-Type': 'text/plain', Upgrade: 'websocket' });
      response.end('this is a WebSocket endpoint; see docs/protocol.md\n');
    },
  );
  http.maxConnections = maxConnections;
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false });
  const awaitingPong = new WeakSet<WebSocket>();
  function onPong(this: WebSocket) {
    awaitingPong.delete(this);
  }

  http.on('connection', (socket: Socket) => {
    open++;
    const peer = peerOf(socket);
    const deadline = setTimeout(() => {
      deadlines.delete(socket);
      log('limit.hit', { limit: 'handshake_timeout', peer, ms: handshakeTimeoutMs });
      socket.destroy();
    }, handshakeTimeoutMs);
    deadline.unref();
    deadlines.set(socket, deadline);
    socket.once('close', () => {
      open--;
      settle(socket);
    });
  });
  // A plain request's socket is left to node's keep-alive and request timeouts from here on.
  http.on('request', (request: IncomingMessage) => settle(request.socket));
  http.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
    log('limit.hit', { limit: 'max_connections', peer: `${data?.remoteAddress}:${data?.remotePort}`, max: maxConnections });
  });

  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    settle(socket);
    socket.on('error', ignore);
    const info: PeerInfo = { peer: peerOf(request.socket), origin: request.headers.origin };
    log('connection.opened', { ...info });
    if (closing !== undefined) return void socket.destroy();
    const refuse = (status: number, error: WireError) => {
      log('connection.refused', { ...info, status, reason: error.code });
      refuseUpgrade(socket, status, error);
    };
    if (draining) return refuse(503, { code: 'SERVER_DRAINING', message: 'the server is shutting down; connect to another one' });
    if (!originAllowed(request, allowOrigins)) {
      return refuse(403, { code: 'FORBIDDEN_ORIGIN', message: `origin ${info.origin} is not allowed (see --allow-origin)` });
    }
    if (options.token !== undefined && !tokenMatches(requestToken(request), options.token)) {
      return refuse(401, { code: 'UNAUTHORIZED', message: 'missing or wrong bearer token' });
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      log('connection.authenticated', { peer: info.peer, auth: options.token === undefined ? 'none' : 'token' });
      ws.on('error', ignore); // ws closes the socket itself after an error; 'close' follows
      ws.on('pong', onPong);
      let hooks: ConnectionHooks | void = undefined;
      // Registered before the owner's listeners, so its detail is read before it cleans up.
      ws.once('close', (code: number) => log('connection.closed', { peer: info.peer, code, ...hooks?.closeDetail?.() }));
      hooks = onConnection(ws, request, socket, info);
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
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
    connections: () => open,
    close() {
      draining = true;
      closing ??= shutdown();
      return closing;
    },
  };

  async function shutdown(): Promise<void> {
    clearInterval(heartbeat);
    for (const deadline of deadlines.values()) clearTimeout(deadline);
    deadlines.clear();
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
    }, SERVER_CLOSE_GRACE_MS);
    await Promise.all(peers);
    clearTimeout(force);
    wss.close();
    http.closeAllConnections();
    await stopped;
  }
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 401: 'Unauthorized', 403: 'Forbidden', 503: 'Service Unavailable' };

function refuseUpgrade(socket: Duplex, status: number, error: WireError & { readonly code: WireErrorCode }): void {
  const body = JSON.stringify({ error });
  const challenge = status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${challenge}Connection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function peerOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '?';
  return `${address.includes(':') ? `[${address}]` : address}:${socket.remotePort ?? '?'}`;
}

function ignore(): void {}
