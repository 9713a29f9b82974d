/**
 * A rollout worker's connection to the learner: opens it, says hello, hands every frame to the
 * session, and when the learner goes away (closed, killed, draining) opens a new one after a
 * backoff — exponential, capped, with jitter (transport/remote/backoff.ts) — until stopped.
 * Refusals that a retry cannot cure (a wrong token: HTTP 401; another protocol or env: the
 * learner's error frame) end the link with that error instead of knocking forever.
 */
import type { RawData, WebSocket } from 'ws';
import { errorMessage } from '../../envs/error-message.ts';
import { backoffDelay, type BackoffOptions } from '../../transport/remote/backoff.ts';
import { encodeFrame } from '../../transport/learner-wire/learner-codec.ts';
import { LEARNER_PROTOCOL, WORKER_MAX_PAYLOAD, WORKER_RECONNECT_BACKOFF } from '../../transport/learner-wire/limits.ts';
import { CLIENT_HEARTBEAT_MS, CONNECT_TIMEOUT_MS } from '../../transport/wire/limits.ts';
import { openWebSocket, refusalStatus, whenOpen } from '../../transport/wire/ws-connect.ts';

export interface LearnerLinkOptions {
  /** `ws://host:port` of the learner server. */
  readonly url: string;
  readonly token?: string | undefined;
  /** The worker's name in its hello. */
  readonly name: string;
  /** The env id in its hello (the learner's must match). */
  readonly env: string;
  readonly backoff?: BackoffOptions;
  readonly random?: () => number;
  readonly maxPayload?: number;
  /** Ping interval (ms); a learner that has not answered the previous ping is dropped (a machine gone without a FIN). 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
}

/** What the link calls as the connection comes and goes. */
export interface LinkSession {
  /** A connection is open and hello was sent; `send` writes to it. */
  connected(send: (text: string) => void): void;
  frame(data: RawData, isBinary: boolean): void;
  /** The connection is gone; nothing sent before it counts any more. */
  disconnected(): void;
}

/** Ends the link: it will not reconnect. */
export class FatalLinkError extends Error {
  override readonly name = 'FatalLinkError';
}

export class LearnerLink {
  #stopped = false;
  #fatal: FatalLinkError | undefined;
  #lastError: string | undefined;
  #ws: WebSocket | undefined;
  #wake: (() => void) | undefined;
  #connects = 0;

  constructor(private readonly options: LearnerLinkOptions) {}

  /** Connections opened so far (the first and every reconnect). */
  get connects(): number {
    return this.#connects;
  }

  /** Runs until `stop()` (resolves) or a fatal refusal (rejects). */
  async run(session: LinkSession): Promise<void> {
    const backoff = this.options.backoff ?? WORKER_RECONNECT_BACKOFF;
    const random = this.options.random ?? Math.random;
    for (let attempt = 0; !this.#stopped; ) {
      const opened = await this.open();
      if (opened === 'fatal-401') throw new FatalLinkError(`the learner at ${this.options.url} refused the token (HTTP 401); pass --token or ACTORGYM_TOKEN`);
      if (opened !== undefined) {
        attempt = 0;
        await this.serve(opened, session);
      }
      if (this.#stopped) break;
      await this.sleep(backoffDelay(attempt++, backoff, random));
    }
  }

  /** Closes the connection and ends `run`. */
  stop(): void {
    this.#stopped = true;
    this.#ws?.close(1000, 'worker stopping');
    this.#wake?.();
  }

  /** Closes the connection with a reason; `run` reconnects unless `fatal`. */
  drop(reason: string, fatal = false): void {
    if (fatal) this.#fatal = new FatalLinkError(reason);
    this.#ws?.close(1000, reason.slice(0, 120));
  }

  /** Why the last attempt to connect failed, if it did. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  private async open(): Promise<WebSocket | 'fatal-401' | undefined> {
    const ws = openWebSocket(this.options.url, {
      token: this.options.token, connectTimeoutMs: CONNECT_TIMEOUT_MS, maxPayload: this.options.maxPayload ?? WORKER_MAX_PAYLOAD,
    });
    this.#ws = ws;
    try {
      await whenOpen(ws);
      this.#lastError = undefined;
      return ws;
    } catch (error) {
      if (refusalStatus(ws) === 401) return 'fatal-401';
      this.#lastError = errorMessage(error);
      return undefined;
    }
  }

  private serve(ws: WebSocket, session: LinkSession): Promise<void> {
    this.#connects++;
    return new Promise<void>((resolve, reject) => {
      ws.on('message', (data: RawData, isBinary: boolean) => session.frame(data, isBinary));
      const heartbeat = this.heartbeat(ws);
      ws.once('close', () => {
        clearInterval(heartbeat);
        session.disconnected();
        if (this.#fatal) reject(this.#fatal);
        else resolve();
      });
      const send = (text: string) => {
        if (ws.readyState === ws.OPEN) ws.send(text);
      };
      send(encodeFrame({ op: 'hello', protocol: LEARNER_PROTOCOL, worker: this.options.name, env: this.options.env }));
      session.connected(send);
    });
  }

  private heartbeat(ws: WebSocket): NodeJS.Timeout | undefined {
    const every = this.options.heartbeatMs ?? CLIENT_HEARTBEAT_MS;
    if (every <= 0) return undefined;
    let answered = true;
    ws.on('pong', () => (answered = true));
    const timer = setInterval(() => {
      if (!answered) return ws.terminate();
      answered = false;
      ws.ping();
    }, every);
    timer.unref();
    return timer;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
