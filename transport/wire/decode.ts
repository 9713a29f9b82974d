/**
 * The one decoding path of every inbound frame: bytes → text → JSON → one zod parse. Failures
 * are values that carry the request id whenever the frame let us read one, so the peer can
 * match the error to its request.
 */
import type { RawData } from 'ws';
import type { z } from 'zod';
import { errorMessage } from '../../envs/error-message.ts';
import type { WireError } from './errors.ts';
import { RequestIdSchema, type RequestId } from './env-schemas.ts';

/** A decoded frame, or the wire error to answer a bad one with (decoding returns, never throws). */
export type Decoded<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly id: RequestId | null; readonly error: WireError };

/** The text of a frame; ws hands text frames over as UTF-8 bytes it has already validated. */
export function frameText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The `id` of a parsed frame if it has a valid one; never throws. */
export function readId(raw: unknown): RequestId | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  // Fast path for the common integer id; the schema decides the rest.
  if (typeof id === 'number') return Number.isSafeInteger(id) && id >= 0 ? id : null;
  return RequestIdSchema.safeParse(id).success ? (id as RequestId) : null;
}

/** The JSON value of a text frame, or a typed failure for binary frames and invalid JSON. */
export function decodeJson(data: RawData, isBinary: boolean): Decoded<unknown> {
  if (isBinary) return fail(null, 'BAD_FRAME', 'binary frames are not accepted here; send JSON text frames');
  try {
    return { ok: true, value: JSON.parse(frameText(data)) as unknown };
  } catch (error) {
    return fail(null, 'BAD_JSON', `frame is not JSON: ${errorMessage(error)}`);
  }
}

/**
 * Validates a parsed frame against `schema`. A frame whose `op` is not in `ops` is `UNKNOWN_OP`;
 * any other mismatch is `BAD_FRAME` naming the first offending field.
 */
export function decodeWith<T>(schema: z.ZodType<T>, ops: ReadonlySet<string>, raw: unknown): Decoded<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const id = readId(raw);
  const op = typeof raw === 'object' && raw !== null ? (raw as { op?: unknown }).op : undefined;
  if (typeof op === 'string' && !ops.has(op)) {
    return fail(id, 'UNKNOWN_OP', `unknown op "${op.slice(0, 64)}"; known ops: ${[...ops].join(', ')}`);
  }
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return fail(id, 'BAD_FRAME', `invalid frame: ${where}${issue?.message ?? 'does not match the schema'}`);
}

function fail(id: RequestId | null, code: WireError['code'], message: string): Decoded<never> {
  return { ok: false, id, error: { code, message } };
}
