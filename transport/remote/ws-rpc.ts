/**
 * Request/response calls multiplexed over one WebSocket to an env server. Each call has a
 * deadline (ENV_TIMEOUT); when the socket closes or its heartbeat fails, every pending and
 * later call rejects with ENV_LOST. A missed deadline makes the connection *suspect* at once
 * (`onSuspect`) and sends a probe (a ping): a server that answers it is only slow and is trusted
 * again; one that does not within the probe time is frozen (SIGSTOPped, a hung machine) and the
 * connection is dropped — so a frozen server costs a call deadline and a probe, not heartbeats. One connection never reconnects: a pool of servers
 * (ws-pool.ts) opens a new one and places later instances on it; a lost instance is an aborted
 * episode, retried upstream.
 */
import type { Socket } from 'node:net';
import { WebSocket, type RawData } from 'ws';
import { frameText, readId } from '../wire/decode.ts';
import { decodeEnvResponse, encodeEnvRequest, type EnvRequestBody } from '../wire/env-codec.ts';
import type { EnvOp, EnvResultByOp } from '../wire/env-schemas.ts';
import { toEnvError } from '../wire/errors.ts';
import { CloseCode } from '../wire/limits.ts';
import type { WriteBatch } from '../wire/write-batch.ts';
import { EnvError } from '../../envs/contract.ts';

export interface RpcOptions {
  readonly callTimeoutMs: number;
  /** Ping interval; the connection is dropped when a pong is missing at the next one. 0 disables. */
  readonly heartbeatMs: number;
  /** How long the probe after a missed call deadline waits for its pong before dropping the connection. */
  readonly probeMs: number;
  /** Buffered bytes above which further requests wait for the socket to drain. */
  readonly highWaterMark: number;
  readonly now: () => number;
}

interface Pending {
  readonly op: EnvOp;
  readonly deadline: number;
  resolve(result: unknown): void;
  reject(error: EnvError): void;
}

const CLOSE_GRACE_MS = 1_000;

export class WsRpc {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private lost: EnvError | undefined;
  private why: string | undefined;
  private readonly outbox: string[] = [];
  private blocked = false;
  private awaitingPong = false;
  private probe: NodeJS.Timeout | undefined;
  private readonly suspectListeners: ((suspect: boolean, why: string) => void)[] = [];
  private readonly sweep: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private readonly lostListeners: ((error: EnvError) => void)[] = [];

  constructor(
    private readonly ws: WebSocket,
    /** The TCP socket, referenced only while calls are pending so an idle client lets the process exit. */
    private readonly socket: Socket | undefined,
    private readonly batch: WriteBatch | undefined,
    private readonly options: RpcOptions,
  ) {
    socket?.unref();
    ws.on('message', (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    ws.on('pong', () => this.onPong());
    ws.on('error', (error: Error) => (this.why ??= error.message));
    ws.once('close', (code: number, reason: Buffer) => this.onClose(code, reason.toString()));
    // One sweep for all deadlines: a call times out between callTimeoutMs and 1.25 × callTimeoutMs.
    this.sweep = setInterval(() => this.expire(), Math.max(5, Math.min(1_000, options.callTimeoutMs / 4)));
    this.sweep.unref();
    if (options.heartbeatMs > 0) {
      this.heartbeat = setInterval(() => this.ping(), options.heartbeatMs);
      this.heartbeat.unref();
    }
  }

  get closed(): boolean {
    return this.lost !== undefined || this.ws.readyState !== WebSocket.OPEN;
  }

  /** Calls `listener` once, when the connection is lost (at once, asynchronously, if it already is). */
  onLost(listener: (error: EnvError) => void): void {
    const lost = this.lost;
    if (lost !== undefined) queueMicrotask(() => listener(lost));
    else this.lostListeners.push(listener);
  }

  /** Calls `listener(true, why)` when a call misses its deadline, and `listener(false, …)` when the probe that follows is answered. */
  onSuspect(listener: (suspect: boolean, why: string) => void): void {
    this.suspectListeners.push(listener);
  }

  call<O extends EnvOp>(body: Extract<EnvRequestBody, { op: O }>): Promise<EnvResultByOp[O]> {
    if (this.lost !== undefined) return Promise.reject(this.lost);
    const id = this.nextId++;
    return new Promise<EnvResultByOp[O]>((resolve, reject) => {
      if (this.pending.size === 0) this.socket?.ref();
      const deadline = this.options.now() + this.options.callTimeoutMs;
      this.pending.set(id, { op: body.op, deadline, resolve: resolve as (result: unknown) => void, reject });
      this.send(encodeEnvRequest(id, body));
    });
  }

  /** Closes the socket (1000); pending calls reject with ENV_LOST. */
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.why ??= 'connection closed by the client';
    const closed = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    this.ws.close(CloseCode.NORMAL, 'client closing');
    const force = setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(force);
  }

  private send(text: string): void {
    if (this.blocked) {
      this.outbox.push(text);
      return;
    }
    this.batch?.hold();
    if (this.ws.bufferedAmount < this.options.highWaterMark) {
      this.ws.send(text);
      return;
    }
    // The callback runs once this frame has reached the kernel, i.e. the backlog has drained.
    this.blocked = true;
    this.ws.send(text, this.drained);
  }

  private readonly drained = (error?: Error | null): void => {
    this.blocked = false;
    if (error) return; // the socket is failing; 'close' rejects what is queued
    while (!this.blocked && this.outbox.length > 0) this.send(this.outbox.shift()!);
  };

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) return; // the env protocol has no binary frames; nothing to attribute it to
    let raw: unknown;
    try {
      raw = JSON.parse(frameText(data));
    } catch {
      return;
    }
    const id = readId(raw);
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (pending === undefined) return; // a late reply to a call that already timed out
    this.settle(id as number);
    const decoded = decodeEnvResponse(pending.op, raw);
    if (!decoded.ok) {
      pending.reject(new EnvError('PROTOCOL_ERROR', `invalid reply to ${pending.op}: ${decoded.error.message}`));
    } else if (decoded.value.op === 'error') {
      pending.reject(toEnvError(decoded.value.error));
    } else {
      pending.resolve(decoded.value.result);
    }
  }

  private settle(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.socket?.unref();
  }

  private expire(): void {
    const now = this.options.now();
    let missed: string | undefined;
    for (const [id, call] of this.pending) {
      if (call.deadline > now) continue;
      this.settle(id);
      missed ??= `${call.op} got no reply within ${this.options.callTimeoutMs} ms`;
      call.reject(new EnvError('ENV_TIMEOUT', missed));
    }
    if (missed !== undefined) this.startProbe(missed);
  }

  /** A missed deadline: suspect at once, then a ping that must come back within `probeMs`. */
  private startProbe(why: string): void {
    if (this.probe !== undefined || this.ws.readyState !== WebSocket.OPEN) return;
    for (const listener of this.suspectListeners) listener(true, why);
    this.probe = setTimeout(() => {
      this.why ??= `${why}, and the server did not answer a probe within ${this.options.probeMs} ms`;
      this.ws.terminate();
    }, this.options.probeMs);
    this.probe.unref();
    this.ws.ping();
  }

  private onPong(): void {
    this.awaitingPong = false;
    if (this.probe === undefined) return;
    clearTimeout(this.probe);
    this.probe = undefined;
    for (const listener of this.suspectListeners) listener(false, 'answered a probe');
  }

  private ping(): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (this.awaitingPong) {
      this.why ??= `the server missed a heartbeat (no pong within ${this.options.heartbeatMs} ms)`;
      this.ws.terminate();
      return;
    }
    this.awaitingPong = true;
    this.ws.ping();
  }

  private onClose(code: number, reason: string): void {
    clearInterval(this.sweep);
    clearInterval(this.heartbeat);
    clearTimeout(this.probe);
    const detail = `close code ${code}${reason ? ` "${reason}"` : ''}`;
    this.lost = new EnvError('ENV_LOST', `${this.why ?? 'connection closed'} (${detail})`);
    this.outbox.length = 0;
    const calls = [...this.pending.values()];
    this.pending.clear();
    this.socket?.unref();
    for (const call of calls) call.reject(this.lost);
    for (const listener of this.lostListeners.splice(0)) listener(this.lost);
  }
}
