/**
 * Pushes the runs' state to every open page over `/live`. Nothing is sent per event: every
 * `tickMs` (default 100 ms, so at most 10 frames a second per run) the hub takes each run's
 * board diff and new chart rows, encodes them once and sends them to every page.
 *
 * Backpressure, lossy on purpose: a page whose socket holds more than `lossyBytes` unsent is
 * marked stale and skipped; once it has drained it gets one full `hello` instead of the diffs it
 * missed, so a slow page costs the run nothing and never falls behind for good. A page that lets
 * `maxBytes` pile up is closed with 1008.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { frameText } from '../../transport/wire/decode.ts';
import type { DashboardRun } from './dashboard-run.ts';
import { ClientFrameSchema, type BoardDiff, type MetricRow, type ServerFrame } from './wire.ts';

export interface LiveHubOptions {
  /** Time between two pushes (ms). Default 100. */
  readonly tickMs?: number;
  /** The stall alarm threshold the page starts with (ms). Default 30 000. */
  readonly alarmMs?: number;
  /** Ping interval (ms); a page that misses a pong is dropped. 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  /** Largest frame a page may send (bytes). Default 4 KiB; pages only send `resync`. */
  readonly maxPayload?: number;
  /** Unsent bytes above which a page is skipped until it drains. Default 1 MiB. */
  readonly lossyBytes?: number;
  /** Unsent bytes above which a page is closed with 1008. Default 16 MiB. */
  readonly maxBytes?: number;
  readonly now?: () => number;
}

export interface LiveHubStats {
  readonly pages: number;
  readonly frames: number;
  readonly bytes: number;
  /** Full `hello` frames sent to pages that had fallen behind or asked. */
  readonly resyncs: number;
}

interface Page {
  stale: boolean;
  awaitingPong: boolean;
  lastResync: number;
}

const RESYNC_MIN_INTERVAL_MS = 1_000;

export class LiveHub {
  private readonly wss: WebSocketServer;
  private readonly pages = new Map<WebSocket, Page>();
  private readonly timer: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly alarmMs: number;
  private readonly lossyBytes: number;
  private readonly maxBytes: number;
  private frames = 0;
  private bytes = 0;
  private resyncs = 0;

  constructor(
    private readonly runs: () => readonly DashboardRun[],
    options: LiveHubOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.alarmMs = options.alarmMs ?? 30_000;
    this.lossyBytes = options.lossyBytes ?? 1024 * 1024;
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 4096, perMessageDeflate: false });
    this.wss.on('error', ignore);
    this.timer = setInterval(() => this.tick(), options.tickMs ?? 100);
    this.timer.unref();
    const heartbeatMs = options.heartbeatMs ?? 30_000;
    if (heartbeatMs > 0) {
      this.heartbeat = setInterval(() => this.ping(), heartbeatMs);
      this.heartbeat.unref();
    }
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
  }

  /** Takes every run's changes and sends them; pages that had fallen behind get a full `hello`. */
  tick(): void {
    const frames: string[] = [];
    const runs = this.runs();
    if (runs.some((run) => run.takeInfoChanged())) frames.push(encode({ op: 'runs', runs: runs.map((run) => run.info()) }));
    const now = this.now();
    for (const run of runs) {
      const rows = run.series.takePending();
      if (rows) frames.push(encode({ op: 'metrics', run: run.id, replace: rows.replace, rows: rows.rows }));
      const board = run.board.takeDiff();
      if (board) frames.push(encode({ op: 'board', run: run.id, now, board }));
    }
    for (const [ws, page] of this.pages) {
      if (page.stale) {
        if (ws.bufferedAmount <= this.lossyBytes) this.sendHello(ws, page);
        continue;
      }
      for (const frame of frames) if (!this.send(ws, page, frame)) break;
    }
  }

  stats(): LiveHubStats {
    return { pages: this.pages.size, frames: this.frames, bytes: this.bytes, resyncs: this.resyncs };
  }

  /** Closes every page with 1001 and stops the timers. */
  close(): void {
    clearInterval(this.timer);
    clearInterval(this.heartbeat);
    for (const ws of this.pages.keys()) ws.close(1001, 'dashboard shutting down');
    setTimeout(() => {
      for (const ws of this.pages.keys()) ws.terminate();
    }, 1_000).unref();
    this.wss.close();
  }

  private accept(ws: WebSocket): void {
    ws.on('error', ignore);
    const page: Page = { stale: false, awaitingPong: false, lastResync: 0 };
    // Flush what the other pages are owed first, so the hello below is not followed by a diff it already holds.
    this.tick();
    this.pages.set(ws, page);
    this.sendHello(ws, page);
    ws.on('pong', () => (page.awaitingPong = false));
    ws.on('message', (data: RawData, isBinary: boolean) => this.receive(ws, page, data, isBinary));
    ws.once('close', () => this.pages.delete(ws));
  }

  private receive(ws: WebSocket, page: Page, data: RawData, isBinary: boolean): void {
    if (isBinary) return this.reply(ws, 'BAD_FRAME', 'binary frames are not accepted; send JSON text');
    let value: unknown;
    try {
      value = JSON.parse(frameText(data));
    } catch (error) {
      return this.reply(ws, 'BAD_JSON', `frame is not JSON: ${(error as Error).message}`);
    }
    const parsed = ClientFrameSchema.safeParse(value);
    if (!parsed.success) {
      const op = typeof value === 'object' && value !== null ? (value as { op?: unknown }).op : undefined;
      if (typeof op === 'string' && op !== 'resync') return this.reply(ws, 'UNKNOWN_OP', `unknown op "${op.slice(0, 64)}"; known ops: resync`);
      return this.reply(ws, 'BAD_FRAME', 'expected {"op":"resync"}');
    }
    // A page that asks again and again gets one hello a second at most.
    if (this.now() - page.lastResync < RESYNC_MIN_INTERVAL_MS) return;
    page.stale = true;
  }

  private reply(ws: WebSocket, code: 'BAD_JSON' | 'BAD_FRAME' | 'UNKNOWN_OP', message: string): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(encode({ op: 'error', error: { code, message } }));
  }

  private sendHello(ws: WebSocket, page: Page): void {
    const runs = this.runs();
    const metrics: Record<string, readonly MetricRow[]> = {};
    const boards: Record<string, BoardDiff> = {};
    for (const run of runs) {
      metrics[run.id] = run.series.all();
      boards[run.id] = run.board.snapshot();
    }
    const hello = encode({ op: 'hello', now: this.now(), alarmMs: this.alarmMs, runs: runs.map((run) => run.info()), metrics, boards });
    page.stale = false;
    page.lastResync = this.now();
    this.resyncs++;
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(hello);
    this.count(hello);
    if (ws.bufferedAmount > this.maxBytes) ws.close(1008, 'page too slow');
  }

  /** Sends unless the page is behind; returns false (and marks it stale) when it is. */
  private send(ws: WebSocket, page: Page, frame: string): boolean {
    if (ws.readyState !== WebSocket.OPEN) return false;
    if (ws.bufferedAmount > this.lossyBytes) {
      page.stale = true;
      return false;
    }
    ws.send(frame);
    this.count(frame);
    return true;
  }

  private count(frame: string): void {
    this.frames++;
    this.bytes += frame.length;
  }

  private ping(): void {
    for (const [ws, page] of this.pages) {
      if (page.awaitingPong) {
        ws.terminate();
        continue;
      }
      page.awaitingPong = true;
      ws.ping();
    }
  }
}

const encode = (frame: ServerFrame): string => JSON.stringify(frame);

function ignore(): void {}
