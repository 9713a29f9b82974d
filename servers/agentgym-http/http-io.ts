/**
 * Request bodies and replies for the AgentGym HTTP server: bounded JSON bodies, field checks
 * that say exactly what was wrong, and JSON replies with an explicit length so keep-alive
 * connections need no chunked encoding.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** A request the server cannot read: answered with `status` and `{"error"}`, never a crash. */
export class BadRequest extends Error {
  constructor(
    readonly status: 400 | 404 | 405 | 413,
    message: string,
  ) {
    super(message);
  }
}

export type Body = Readonly<Record<string, unknown>>;

const tooLarge = (max: number) => new BadRequest(413, `request body larger than maxBodyBytes=${max}`);

/**
 * A client's value, shown in an error message. Never throws: `JSON.stringify` overflows the stack
 * on JSON nested a few thousand deep, which fits in a 40 KB body (found by the fuzz test, issue 24).
 */
function preview(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 100);
  } catch {
    return `${Array.isArray(value) ? 'an array' : 'an object'} nested too deep to show`;
  }
}

/** Reads a JSON object body; an empty body is `{}` (AgentGym's clients POST /create without one). */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<Body> {
  if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('error', reject);
    req.on('end', () => {
      if (size > maxBytes) return;
      const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({});
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        return reject(new BadRequest(400, `malformed JSON body: ${(err as Error).message}`));
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return reject(new BadRequest(400, `body must be a JSON object, got ${preview(value)}`));
      }
      resolve(value as Body);
    });
  });
}

/** An integer field; digit strings pass too, as pydantic's lax mode lets them in AgentGym. */
export function intField(body: Body, name: string): number {
  const value = body[name];
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  throw new BadRequest(400, value === undefined ? `missing field "${name}" (an integer)` : `field "${name}" must be an integer, got ${preview(value)}`);
}

export function optionalIntField(body: Body, name: string): number | undefined {
  return body[name] === undefined || body[name] === null ? undefined : intField(body, name);
}

export function stringField(body: Body, name: string): string {
  const value = body[name];
  if (typeof value === 'string') return value;
  throw new BadRequest(400, value === undefined ? `missing field "${name}" (a string)` : `field "${name}" must be a string, got ${preview(value)}`);
}

/** `close` ends the keep-alive connection after this reply (413, refusals, draining). */
export function sendJson(res: ServerResponse, status: number, value: unknown, close = false, extra: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(value);
  const headers: OutgoingHttpHeaders = { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  if (close) headers['connection'] = 'close';
  res.writeHead(status, headers);
  res.end(text);
}
