/**
 * The event server's state: the run's events so far (a bounded replay log), the connections and
 * the subscribers among them, and how the stream ended. Each event is numbered (`seq`), kept and
 * pushed to every live subscriber in one synchronous step, so a subscriber that joins between two
 * events gets the replay then the live events with nothing missing or repeated at the seam.
 */
import type { RawData, WebSocket } from 'ws';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { encodeError } from '../../transport/wire/env-codec.ts';
import { decodeSubscribe, encodeEvent, encodeSubscribed, END_FRAME } from '../../transport/wire/event-codec.ts';
import { CloseCode } from '../../transport/wire/limits.ts';
import type { FrameBudget } from '../listener/frame-budget.ts';
import type { HealthState } from '../listener/health.ts';
import { openWsLane } from '../listener/ws-lane.ts';
import { isLossy } from './delivery-classes.ts';
import { ReplayLog, type ReplayEntry, type ReplayStats } from './replay-log.ts';
import { Subscriber, type StreamEnding, type SubscriberLimits } from './subscriber.ts';
import { SubscriberWaits } from './subscriber-waits.ts';

export const COMPLETED: StreamEnding = { frame: END_FRAME, code: CloseCode.NORMAL, reason: 'end of stream' };
export const FAILED: StreamEnding = { code: CloseCode.INTERNAL, reason: 'event source failed' };
export const SHUTTING_DOWN: StreamEnding = { code: CloseCode.GOING_AWAY, reason: 'server shutting down' };

export class EventHub {
  readonly waits: SubscriberWaits;
  readonly #replay: ReplayLog;
  /** Every open connection, with its subscriber once it has subscribed. */
  readonly #connections = new Map<WebSocket, Subscriber | undefined>();
  readonly #subscribers = new Set<Subscriber>();
  #droppedByClosed = 0;
  /** Frames received since start. */
  #frames = 0;
  #seq = 0;
  #ended: StreamEnding | undefined;
  #shuttingDown = false;

  constructor(
    replayBytes: number,
    private readonly limits: SubscriberLimits,
    /** The server-wide frame budget (undefined: frames run as they arrive), and the socket bytes past which a peer's frames wait. */
    private readonly frames: { readonly budget: FrameBudget | undefined; readonly pauseBufferedBytes: number },
  ) {
    this.#replay = new ReplayLog(replayBytes);
    this.waits = new SubscriberWaits(() => this.#subscribers.size);
  }

  get subscribers(): number {
    return this.#subscribers.size;
  }

  /** Numbers the run's next event, keeps it for late subscribers and pushes it to the live ones. */
  record(event: TrainingEvent): void {
    const text = encodeEvent(event, this.#seq);
    const entry: ReplayEntry = { seq: this.#seq++, type: event.type, text, bytes: Buffer.byteLength(text), lossy: isLossy(event.type) };
    this.#replay.append(entry);
    for (const subscriber of this.#subscribers) subscriber.push(entry);
  }

  /** The run's stream ended (`COMPLETED` or `FAILED`): every subscriber gets its backlog, then this ending. */
  end(ending: StreamEnding): void {
    this.#ended = ending;
    for (const subscriber of this.#subscribers) subscriber.finish(ending);
  }

  /** Serves a new connection (`socket` is its TCP socket): its first frame must be `subscribe`. */
  accept(ws: WebSocket, socket: NodeJS.EventEmitter): void {
    this.#connections.set(ws, undefined);
    const submit = openWsLane(this.frames.budget, ws, socket, {
      run: (data, isBinary) => this.subscribe(ws, data, isBinary),
      blocked: () => ws.bufferedAmount > this.frames.pauseBufferedBytes,
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      this.#frames++;
      submit(data, isBinary);
    });
    ws.once('close', () => this.closed(ws));
  }

  /** The server is closing: every subscriber is finished with the stream's ending, or 1001 while it is still live. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const subscriber of this.#subscribers) subscriber.finish(this.#ended ?? SHUTTING_DOWN);
  }

  /** Resolves once every subscriber has received its backlog and closed, or after `drainMs`. */
  async drained(drainMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
    await Promise.race([Promise.all([...this.#subscribers].map((subscriber) => subscriber.closed)), timeout]);
    clearTimeout(timer);
  }

  health(): HealthState {
    const detail = { subscribers: this.#subscribers.size, replayEvents: this.#replay.stats().events, stream: this.#ended === undefined ? 'live' : 'ended' };
    return { ready: true, detail };
  }

  stats(): { connections: number; subscribers: number; dropped: number; frames: number; replay: ReplayStats } {
    let dropped = this.#droppedByClosed;
    for (const subscriber of this.#subscribers) dropped += subscriber.dropped;
    return { connections: this.#connections.size, subscribers: this.#subscribers.size, dropped, frames: this.#frames, replay: this.#replay.stats() };
  }

  private subscribe(ws: WebSocket, data: RawData, isBinary: boolean): void {
    if (ws.readyState !== ws.OPEN) return; // closing: nothing to answer
    const frame = decodeSubscribe(data, isBinary);
    if (!frame.ok) return void ws.send(encodeError(frame.id, frame.error));
    if (this.#connections.get(ws) !== undefined) {
      const error = { code: 'BAD_FRAME', message: 'this connection is already subscribed' } as const;
      return void ws.send(encodeError(frame.value.id ?? null, error));
    }
    const types = frame.value.types === undefined ? undefined : new Set<string>(frame.value.types);
    // An `after` at or past the next position is from another stream (a restarted run): replay it all.
    const after = frame.value.after !== undefined && frame.value.after < this.#seq ? frame.value.after : undefined;
    const snapshot = this.#replay.snapshot(types, after);
    const subscriber = new Subscriber(ws, types, snapshot, this.limits);
    this.#connections.set(ws, subscriber);
    this.#subscribers.add(subscriber);
    ws.send(encodeSubscribed(snapshot.length, this.#replay.missed(types, after)));
    subscriber.start();
    if (this.#ended !== undefined) subscriber.finish(this.#ended);
    else if (this.#shuttingDown) subscriber.finish(SHUTTING_DOWN);
    this.waits.changed();
  }

  private closed(ws: WebSocket): void {
    const subscriber = this.#connections.get(ws);
    this.#connections.delete(ws);
    if (subscriber === undefined) return;
    this.#subscribers.delete(subscriber);
    this.#droppedByClosed += subscriber.dropped;
    this.waits.changed();
  }
}
