/**
 * A WebSocket peer for the WS fuzz test: sends text, binary, non-UTF-8 and oversize frames and
 * pings, keeps every reply as raw text (the test parses and judges it), and reports how the
 * connection ended. Waits are bounded: a server that stops answering fails the test at the
 * deadline instead of hanging it.
 */
import { WebSocket } from 'ws';

export class FuzzWsPeer {
  private readonly replies: string[] = [];
  private binaryReplies = 0;
  private wake: (() => void) | undefined;
  /** The close code once the connection has closed. */
  closeCode: number | undefined;
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      if (isBinary) this.binaryReplies++;
      else this.replies.push(data.toString());
      this.wake?.();
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code) => {
        this.closeCode = code;
        this.wake?.();
        resolve(code);
      }),
    );
  }

  static open(url: string, headers: Record<string, string>, deadlineMs: number): Promise<FuzzWsPeer> {
    const ws = new WebSocket(url, { perMessageDeflate: false, headers, handshakeTimeout: deadlineMs });
    const peer = new FuzzWsPeer(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(peer));
      ws.once('unexpected-response', (_request, response) => reject(new Error(`handshake refused with HTTP ${response.statusCode}`)));
      ws.once('error', reject);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Binary frames the server sent; the env protocol never sends any. */
  get binaryCount(): number {
    return this.binaryReplies;
  }

  send(data: string | Uint8Array, binary: boolean): void {
    this.ws.send(data, { binary });
  }

  ping(bytes: Uint8Array): void {
    this.ws.ping(bytes);
  }

  /** Waits until `count` replies are buffered or the connection closed; throws past the deadline. */
  async waitReplies(count: number, deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (this.replies.length < count && this.closeCode === undefined) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`server answered ${this.replies.length} of ${count} frames within ${deadlineMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** The replies received so far, removed from the buffer. */
  take(): string[] {
    return this.replies.splice(0);
  }

  /** Waits for the server to close the connection; throws past the deadline. */
  async waitClosed(deadlineMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`connection still open ${deadlineMs} ms after a frame that must close it`)), deadlineMs);
    });
    try {
      return await Promise.race([this.closed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closeCode !== undefined) return;
    this.ws.close(1000);
    await this.waitClosed(10_000).catch(() => this.ws.terminate());
  }
}

/** The HTTP status a handshake with these headers gets, or 101 when the upgrade succeeded. */
export function handshakeStatus(url: string, headers: Record<string, string>, deadlineMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, headers, handshakeTimeout: deadlineMs });
    ws.on('error', (error) => reject(error));
    ws.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
  });
}
