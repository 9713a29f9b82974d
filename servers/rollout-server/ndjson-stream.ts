/**
 * The response of `POST /v1/rollouts`: `application/x-ndjson`, one JSON object per line, each
 * written as soon as it exists (episodes finish out of order; a trainer starts on the first group
 * that is whole). Lines after the client went away are dropped.
 */
import type { ServerResponse } from 'node:http';

export class NdjsonStream {
  constructor(private readonly res: ServerResponse) {}

  /** Sends the 200 and its headers now, so the client sees the batch id before any episode ends. */
  open(id: string): void {
    this.res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store', 'x-rollout-id': id, 'X-Accel-Buffering': 'no' });
    this.res.flushHeaders();
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  line(value: object): void {
    if (!this.closed) this.res.write(`${JSON.stringify(value)}\n`);
  }

  end(value: object): void {
    if (!this.closed) this.res.end(`${JSON.stringify(value)}\n`);
  }
}
