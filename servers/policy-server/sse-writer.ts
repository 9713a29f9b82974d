/**
 * Server-sent events for a streamed completion: `data: <json>` events, ended by `data: [DONE]`.
 * Writes after the client went away are dropped. The events are a few hundred bytes each, so the
 * socket's buffer never needs a drain wait.
 */
import type { ServerResponse } from 'node:http';

export class SseWriter {
  constructor(readonly res: ServerResponse) {}

  /** Sends the headers; from here on errors can only travel as events. */
  open(): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    // The headers go out at once, so a client sees the stream start before decoding ends.
    this.res.flushHeaders();
  }

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  send(value: unknown): void {
    if (!this.gone) this.res.write(`data: ${JSON.stringify(value)}\n\n`);
  }

  /** Ends the stream with `data: [DONE]`. */
  done(): void {
    if (this.gone) return;
    this.res.write('data: [DONE]\n\n');
    this.res.end();
  }

  /** Ends the stream after an error event (no `[DONE]`: the completion did not finish). */
  fail(error: unknown): void {
    this.send(error);
    if (!this.gone) this.res.end();
  }
}
