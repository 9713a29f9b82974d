/**
 * The WebSocket listener shared by the env server and the event server: an HTTP server whose
 * upgrade handler refuses, before any WebSocket exists, a draining server (503), a browser page
 * of a foreign origin (403) and a missing or wrong bearer token (401) (upgrade-gate.ts); a ws
 * server with explicit limits; two connection budgets, one for sockets still in their handshake
 * (small, per address, a short deadline, oldest closed first) and one for upgraded peers
 * (connection-registry.ts); `/healthz` and `/readyz` (health.ts); a ping/pong
 * heartbeat (heartbeat.ts); and a shutdown that closes every peer with 1001.
 *
 * `listenWebSocket` composes those parts; each holds its own state, created before the HTTP
 * server's callbacks that use it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  CloseCode,
  SERVER_CLOSE_GRACE_MS,
  SERVER_HANDSHAKE_TIMEOUT_MS,
  SERVER_MAX_CONNECTIONS,
  SERVER_MAX_PENDING_CONNECTIONS,
  SERVER_MAX_PENDING_PER_ADDRESS,
} from '../../transport/wire/limits.ts';
import { ConnectionRegistry, peerOf } from './connection-registry.ts';
import { answerHealth, type HealthState } from './health.ts';
import { Heartbeat } from './heartbeat.ts';
import { listen } from './listen.ts';
import type { OpsLog } from './ops-log.ts';
import { refuseUpgrade, UpgradeGate, type Refusal } from './upgrade-gate.ts';

export interface WsListenOptions {
  readonly port: number;
  readonly host: string;
  /** Bearer token every upgrade must present (several: any of them, each its own client for quotas). */
  readonly token: string | readonly string[] | undefined;
  /** Ping interval; a peer that has not answered the previous ping is terminated. 0 disables. */
  readonly heartbeatMs: number;
  readonly maxPayload: number;
  /**
   * Browser origins allowed to connect besides this server's own loopback pages (`*`: any).
   * Requests without `Origin` (programs) always pass. Default: none.
   */
  readonly allowOrigins?: readonly string[];
  /** A connection not upgraded (or not done with its HTTP request) within this many ms is destroyed. Default 5 000. */
  readonly handshakeTimeoutMs?: number;
  /** Upgraded peers at once; an upgrade past it is refused with 503. Default 512. */
  readonly maxConnections?: number;
  /** Connections not upgraded yet (idle, mid-handshake, health probes); past it the oldest is closed. Default 128. */
  readonly maxPendingConnections?: number;
  /** Connections not upgraded yet from one remote address (IPv6: one /64); past it its oldest is closed. Default 16. */
  readonly maxPendingPerAddress?: number;
  /** The owner's part of readiness (e.g. an instance cap) and figures for the health probes. */
  readonly health?: () => HealthState;
  /** Connection events as JSON lines (`--log-json`). */
  readonly log?: OpsLog;
  /**
   * `one` (default): each connection's frames are handed over one per event-loop turn (ws
   * `allowSynchronousEvents: false`), so a read of 64 KiB of small frames cannot hold the loop
   * while health probes and other peers wait; the peer waits in TCP meanwhile. `all`: every frame
   * of a read at once, faster for one pipelined peer (docs/reliability.md#hardening-round-two-connection-budgets).
   */
  readonly framesPerTurn?: 'one' | 'all';
}

/** Who is on the other end, for log lines. */
export interface PeerInfo {
  readonly peer: string;
  readonly origin: string | undefined;
  /** Who the peer counts as for per-client quotas: its token's hash, or its address without a token. */
  readonly client: string;
}

/** What the owner of a connection adds to its `connection.closed` log line (e.g. the instances it held). */
export interface ConnectionHooks {
  closeDetail?(): Readonly<Record<string, string | number | boolean>>;
}

/** The owner's handler of an accepted WebSocket peer. */
export type OnConnection = (ws: WebSocket, request: IncomingMessage, socket: Duplex, peer: PeerInfo) => ConnectionHooks | void;

export interface WsListener {
  readonly port: number;
  readonly url: string;
  /** True once `drain` or `close` was called. */
  readonly draining: boolean;
  /** Stops accepting: upgrades get 503 `SERVER_DRAINING` and `/readyz` 503; open peers stay. */
  drain(): void;
  /** TCP connections open now, upgraded or not. */
  connections(): number;
  /** Connections not upgraded yet, and those the pending budget closed since start. */
  pending(): { readonly open: number; readonly closedByDeadline: number; readonly evicted: number };
  /** Closes every peer with 1001, waits for them (terminating stragglers), then stops listening. */
  close(): Promise<void>;
}

/** Listens on `options.port` and hands every admitted WebSocket peer to `onConnection`. */
export async function listenWebSocket(options: WsListenOptions, onConnection: OnConnection): Promise<WsListener> {
  const listener = new WebSocketListener(options, onConnection);
  await listener.listen();
  return listener;
}

class WebSocketListener implements WsListener {
  #port = 0;
  #url = '';
  #draining = false;
  #closing: Promise<void> | undefined;
  readonly #log: OpsLog;
  readonly #maxConnections: number;
  readonly #registry: ConnectionRegistry;
  readonly #gate: UpgradeGate;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #heartbeat: Heartbeat;

  constructor(
    private readonly options: WsListenOptions,
    private readonly onConnection: OnConnection,
  ) {
    const handshakeTimeoutMs = options.handshakeTimeoutMs ?? SERVER_HANDSHAKE_TIMEOUT_MS;
    this.#log = options.log ?? (() => {});
    this.#maxConnections = options.maxConnections ?? SERVER_MAX_CONNECTIONS;
    this.#registry = new ConnectionRegistry({
      handshakeTimeoutMs,
      maxConnections: this.#maxConnections,
      maxPending: options.maxPendingConnections ?? SERVER_MAX_PENDING_CONNECTIONS,
      maxPendingPerAddress: options.maxPendingPerAddress ?? SERVER_MAX_PENDING_PER_ADDRESS,
      log: this.#log,
    });
    this.#gate = new UpgradeGate({ token: options.token, allowOrigins: options.allowOrigins ?? [] });
    this.#http = createProbeServer(handshakeTimeoutMs, () => this.readiness());
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false, allowSynchronousEvents: options.framesPerTurn === 'all' });
    this.#wss.on('error', ignore);
    this.#heartbeat = new Heartbeat(this.#wss, options.heartbeatMs);
    this.#registry.attach(this.#http);
    this.#http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head));
  }

  async listen(): Promise<void> {
    this.#port = await listen(this.#http, this.options.port, this.options.host);
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    this.#url = `ws://${host}:${this.#port}`;
    this.#heartbeat.start();
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return this.#url;
  }

  get draining(): boolean {
    return this.#draining;
  }

  drain(): void {
    this.#draining = true;
  }

  connections(): number {
    return this.#registry.open;
  }

  pending(): { readonly open: number; readonly closedByDeadline: number; readonly evicted: number } {
    const { pending } = this.#registry;
    return { open: pending.size, closedByDeadline: pending.closed.deadline, evicted: pending.closed.evictedGlobal + pending.closed.evictedPerAddress };
  }

  close(): Promise<void> {
    this.#draining = true;
    this.#closing ??= this.shutdown();
    return this.#closing;
  }

  /** The listener's part of `/readyz` (draining, the cap on upgraded peers), then the owner's. */
  private readiness(): HealthState {
    const owner = this.options.health?.();
    const detail = { connections: this.#registry.open, peers: this.#registry.admitted, pending: this.#registry.pending.size, ...owner?.detail };
    if (this.#draining) return { ready: false, reason: 'draining', detail };
    if (this.#registry.full) return { ready: false, reason: 'at the connection limit', detail };
    return owner === undefined ? { ready: true, detail } : { ...owner, detail };
  }

  /** A refused socket stays pending, so its deadline still closes it if the peer never does. */
  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', ignore);
    const info: PeerInfo = { peer: peerOf(request.socket), origin: request.headers.origin, client: this.#gate.client(request) };
    this.#log('connection.opened', { peer: info.peer, origin: info.origin });
    if (this.#closing !== undefined) return void socket.destroy();
    const refusal = this.#gate.check(request, this.#draining) ?? this.full(socket);
    if (refusal !== undefined) {
      this.#log('connection.refused', { peer: info.peer, origin: info.origin, status: refusal.status, reason: refusal.error.code });
      return refuseUpgrade(socket, refusal);
    }
    this.#registry.admit(socket);
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request, socket, info));
  }

  private full(socket: Duplex): Refusal | undefined {
    if (!this.#registry.full) return undefined;
    this.#registry.refusedFull(socket);
    const message = `this server holds ${this.#maxConnections} connections, its limit (--max-connections); retry later or use another server`;
    return { status: 503, error: { code: 'TOO_MANY_CONNECTIONS', message } };
  }

  private accept(ws: WebSocket, request: IncomingMessage, socket: Duplex, info: PeerInfo): void {
    this.#log('connection.authenticated', { peer: info.peer, auth: this.#gate.auth });
    ws.on('error', ignore); // ws closes the socket itself after an error; 'close' follows
    this.#heartbeat.watch(ws);
    let hooks: ConnectionHooks | void = undefined;
    // Registered before the owner's listeners, so its detail is read before it cleans up.
    ws.once('close', (code: number) => this.#log('connection.closed', { peer: info.peer, code, ...hooks?.closeDetail?.() }));
    hooks = this.onConnection(ws, request, socket, info);
  }

  private async shutdown(): Promise<void> {
    this.#heartbeat.stop();
    this.#registry.clear();
    const stopped = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    await closePeers(this.#wss);
    this.#wss.close();
    this.#http.closeAllConnections();
    await stopped;
  }
}

/**
 * The HTTP side of a WebSocket endpoint: the health probes, and 426 for any other plain request.
 * Node's own header and request deadlines back the registry's per-connection one for HTTP
 * requests; its sweep runs often enough for a short deadline to hold.
 */
function createProbeServer(handshakeTimeoutMs: number, readiness: () => HealthState): Server {
  return createServer(
    {
      // A second behind the pending budget's deadline, so that one closes idle sockets (and logs it); node's backs it up.
      headersTimeout: handshakeTimeoutMs + 1_000,
      requestTimeout: handshakeTimeoutMs + 1_000,
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, handshakeTimeoutMs / 4)),
    },
    (request: IncomingMessage, response: ServerResponse) => {
      if (answerHealth(request, response, readiness)) return;
      response.writeHead(426, { 'Content-Type': 'text/plain', Upgrade: 'websocket', Connection: 'close' });
      response.end('this is a WebSocket endpoint; see docs/protocol.md\n');
    },
  );
}

/** Closes every peer with 1001 and waits for each; peers still open after the grace period are terminated. */
async function closePeers(wss: WebSocketServer): Promise<void> {
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
}

function ignore(): void {}
