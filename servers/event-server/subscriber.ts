/**
 * One subscribed connection of the event server: its replay (the run's events before it
 * subscribed), then the live events, through one ordered backlog with flow control. The socket
 * is filled up to `highWaterBytes`; the rest waits here until the socket has flushed, so the
 * server can still skip high-rate events for a slow subscriber instead of piling everything into
 * the socket.
 *
 * Replayed events never count against the backlog limits (the server holds them anyway, bounded by
 * the replay log); live events queued behind them do. Past `lossyBytes` of live backlog a
 * subscriber stops getting high-rate events; past `maxBytes` it is closed with 1008.
 */
import { WebSocket } from 'ws';
import { CloseCode } from '../../transport/wire/limits.ts';
import { Fifo } from './fifo.ts';
import type { ReplayEntry } from './replay-log.ts';

export interface SubscriberLimits {
  readonly lossyBytes: number;
  readonly maxBytes: number;
  readonly highWaterBytes: number;
}

/** How a subscriber's stream ends once its backlog is sent: an optional last frame, then a close. */
export interface StreamEnding {
  readonly frame?: string;
  readonly code: number;
  readonly reason: string;
}

export class Subscriber {
  /** Resolves once the socket has closed. */
  readonly closed: Promise<void>;
  /** High-rate events skipped for this subscriber. */
  dropped = 0;
  private readonly backlog = new Fifo<ReplayEntry>();
  /** Entries at the head of `backlog` that are replay, not live. */
  private replayLeft: number;
  private liveBytes = 0;
  private ending: StreamEnding | undefined;
  /** A send callback will call `pump` once the socket has flushed. */
  private waiting = false;
  // ws passes the socket's write error, or null once the frame is written.
  private readonly resume = (error?: Error | null): void => {
    this.waiting = false;
    if (!error) this.pump();
  };

  constructor(
    private readonly ws: WebSocket,
    private readonly types: ReadonlySet<string> | undefined,
    replay: readonly ReplayEntry[],
    private readonly limits: SubscriberLimits,
  ) {
    for (const entry of replay) this.backlog.push(entry);
    this.replayLeft = replay.length;
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    void this.closed.then(() => this.backlog.clear());
  }

  /** True once the socket is closed or its stream is ending: it takes no more events. */
  get done(): boolean {
    return this.ending !== undefined || this.ws.readyState !== WebSocket.OPEN;
  }

  /** Starts sending the replay (call after the `subscribed` frame). */
  start(): void {
    this.pump();
  }

  /** A live event of the run. */
  push(entry: ReplayEntry): void {
    if (this.done || (this.types !== undefined && !this.types.has(entry.type))) return;
    const queued = this.liveBytes + this.ws.bufferedAmount;
    if (queued > this.limits.maxBytes) {
      this.ending = { code: CloseCode.POLICY, reason: 'subscriber too slow' };
      this.backlog.clear();
      this.ws.close(CloseCode.POLICY, 'subscriber too slow');
      return;
    }
    if (entry.lossy && queued > this.limits.lossyBytes) {
      this.dropped++;
      return;
    }
    this.backlog.push(entry);
    this.liveBytes += entry.bytes;
    this.pump();
  }

  /** Ends the stream after the backlog: `end` + 1000 when the run's stream completed. */
  finish(ending: StreamEnding): void {
    if (this.done) return;
    this.ending = ending;
    this.pump();
  }

  private pump(): void {
    if (this.waiting) return;
    const ws = this.ws;
    while (ws.readyState === WebSocket.OPEN) {
      const entry = this.backlog.shift();
      if (entry === undefined) {
        if (this.ending === undefined) return;
        if (this.ending.frame !== undefined) ws.send(this.ending.frame);
        ws.close(this.ending.code, this.ending.reason);
        return;
      }
      if (this.replayLeft > 0) this.replayLeft--;
      else this.liveBytes -= entry.bytes;
      // ws calls back once this frame has left for the kernel, i.e. the socket has flushed.
      const full = ws.bufferedAmount + entry.bytes >= this.limits.highWaterBytes;
      ws.send(entry.text, full ? this.resume : undefined);
      if (full) {
        this.waiting = true;
        return;
      }
    }
  }
}
