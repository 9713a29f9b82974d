/** A bare WebSocket peer for tests that speak the protocol by hand (garbage included). */
import { WebSocket } from 'ws';

export class RawPeer {
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  /** Resolves with the close code once the socket has closed. */
  readonly closed: Promise<number>;
  private readonly frames: unknown[] = [];
  private readonly waiting: ((frame: unknown) => void)[] = [];

  constructor(url: string, options: { token?: string; autoPong?: boolean } = {}) {
    this.ws = new WebSocket(url, {
      perMessageDeflate: false,
      autoPong: options.autoPong ?? true,
      ...(options.token ? { headers: { Authorization: `Bearer ${options.token}` } } : {}),
    });
    this.ws.on('error', () => {});
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('close', () => reject(new Error('closed before open')));
    });
    this.opened.catch(() => {});
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve(code)));
    this.ws.on('message', (data, isBinary) => {
      const frame: unknown = isBinary ? data : JSON.parse(data.toString());
      const waiting = this.waiting.shift();
      if (waiting) waiting(frame);
      else this.frames.push(frame);
    });
  }

  static async open(url: string, options: { token?: string; autoPong?: boolean } = {}): Promise<RawPeer> {
    const peer = new RawPeer(url, options);
    await peer.opened;
    return peer;
  }

  send(frame: object | string | Buffer, binary = false): void {
    this.ws.send(typeof frame === 'object' && !Buffer.isBuffer(frame) ? JSON.stringify(frame) : frame, { binary });
  }

  next(): Promise<any> {
    if (this.frames.length > 0) return Promise.resolve(this.frames.shift());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Sends a request and returns the next frame (the peer must not have other requests in flight). */
  async call(frame: object | string | Buffer, binary = false): Promise<any> {
    this.send(frame, binary);
    return this.next();
  }

  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) {
      this.ws.close();
      await this.closed;
    }
  }
}

/** Polls `condition` every 5 ms until it holds, failing after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
