/**
 * The AgentGym HTTP port's share of the process's buffered-bytes budget (`--max-buffered-bytes`,
 * ../listener/outbound-budget.ts; under `actorgym serve` one budget with the env server's
 * WebSocket peers). Issue 40, finding 2: a client that pipelines requests and never reads the
 * replies made the server compute and queue every reply (16 sockets of 2,000 `/observation`
 * requests of 100 KB each grew it past 2 GiB).
 *
 * Per socket, a request is served only while fewer than `maxInFlight` replies are unfinished (not
 * yet written to the kernel) and the socket's unsent reply bytes are within its share; otherwise
 * it waits here, in order, and the socket stops being read (its client waits in TCP). Waiting
 * requests run as replies finish or the socket drains. A socket is closed when it holds more than
 * `maxHeld` waiting requests, when its requests have waited `heldTimeoutMs`, or, once a reply is
 * written with the budget's total passed, when it holds more than its share (as the WebSocket
 * side closes such a peer with 1008 at its next reply).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { OpsLog } from '../listener/ops-log.ts';
import type { OutboundBudget, OutboundPeer } from '../listener/outbound-budget.ts';
import { peerOf } from '../listener/pending-sockets.ts';

export interface ResponseBudgetOptions {
  readonly maxInFlight: number;
  readonly maxHeld: number;
  readonly heldTimeoutMs: number;
}

interface SocketState {
  readonly socket: Socket;
  readonly peer: OutboundPeer;
  /** Replies not yet written to the kernel (queued behind others, or in the socket's buffer). */
  readonly replies: Set<ServerResponse>;
  readonly held: (() => void)[];
  paused: boolean;
  /** Closed by this budget: its later requests (already parsed) are dropped. */
  closing: boolean;
  heldTimer: NodeJS.Timeout | undefined;
}

export class ResponseBudget {
  readonly #sockets = new Map<Socket, SocketState>();
  /** Requests that waited for their socket, and sockets closed by this budget, since start. */
  readonly stats = { held: 0, closed: 0 };

  constructor(
    readonly outbound: OutboundBudget,
    private readonly options: ResponseBudgetOptions,
    private readonly log: OpsLog,
  ) {}

  /** Tracks every socket of `server` from its connection to its close. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      const state: SocketState = { socket, peer: this.outbound.add(() => unsent(state)), replies: new Set(), held: [], paused: false, closing: false, heldTimer: undefined };
      this.#sockets.set(socket, state);
      socket.on('drain', () => this.pump(state));
      socket.once('close', () => {
        clearTimeout(state.heldTimer);
        state.held.length = 0;
        this.outbound.remove(state.peer);
        this.#sockets.delete(socket);
      });
    });
  }

  /** Requests waiting for their socket now. */
  get waiting(): number {
    let held = 0;
    for (const state of this.#sockets.values()) held += state.held.length;
    return held;
  }

  /** Runs `serve` for this request now, or once its socket has room for another reply. */
  request(req: IncomingMessage, res: ServerResponse, serve: () => void): void {
    const state = this.#sockets.get(req.socket as Socket);
    if (state === undefined) return serve(); // not ours (closed already): Node answers nothing on it
    if (state.closing) return;
    const over = this.outbound.overLimit(state.peer);
    if (over !== undefined) return this.close(state, 'max_buffered_bytes', over);
    const run = (): void => {
      state.replies.add(res);
      const done = (): void => {
        if (state.replies.delete(res)) this.pump(state);
      };
      res.once('finish', done);
      res.once('close', done);
      // Counted as soon as the reply is written (Node emits nothing then for a reply queued behind another).
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        const result = end(...args);
        const over = this.outbound.overLimit(state.peer);
        if (over !== undefined) this.close(state, 'max_buffered_bytes', over);
        return result;
      }) as ServerResponse['end'];
      serve();
    };
    if (state.held.length === 0 && this.hasRoom(state)) return run();
    if (state.held.length >= this.options.maxHeld) return this.close(state, 'held_requests', `more than ${this.options.maxHeld} requests wait for this socket to read its replies`);
    this.stats.held++;
    state.held.push(run);
    this.hold(state);
  }

  private hasRoom(state: SocketState): boolean {
    return state.replies.size < this.options.maxInFlight && !this.outbound.blocked(state.peer);
  }

  /** Stops reading the socket and starts the clock on its waiting requests. */
  private hold(state: SocketState): void {
    if (!state.paused) {
      state.paused = true;
      state.socket.pause();
    }
    state.heldTimer ??= setTimeout(
      () => this.close(state, 'held_timeout', `requests waited ${this.options.heldTimeoutMs} ms for this socket to read its replies`),
      this.options.heldTimeoutMs,
    ).unref();
  }

  /** Runs waiting requests while the socket has room; reads it again once none wait. */
  private pump(state: SocketState): void {
    while (state.held.length > 0 && this.hasRoom(state)) (state.held.shift() as () => void)();
    if (state.held.length > 0 || state.socket.destroyed) return;
    clearTimeout(state.heldTimer);
    state.heldTimer = undefined;
    if (state.paused) {
      state.paused = false;
      state.socket.resume();
    }
  }

  private close(state: SocketState, limit: string, reason: string): void {
    if (state.closing) return;
    state.closing = true;
    this.stats.closed++;
    this.log('limit.hit', { limit, peer: peerOf(state.socket), buffered: state.peer.accounted, reason });
    state.held.length = 0;
    state.socket.destroy();
  }
}

/**
 * Reply bytes not yet written to the kernel: the socket's buffer, plus replies queued behind the
 * one on the socket (Node holds those in the response until its turn).
 */
function unsent(state: SocketState): number {
  let bytes = state.socket.writableLength;
  for (const res of state.replies) if (res.socket !== state.socket) bytes += res.writableLength;
  return bytes;
}
