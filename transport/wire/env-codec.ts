/**
 * Encoding and decoding of env protocol frames. Encoders build the JSON text directly around
 * `JSON.stringify` of the payload, so a reply costs one stringify and no envelope object.
 */
import type { RawData } from 'ws';
import { decodeJson, decodeWith, type Decoded } from './decode.ts';
import {
  ENV_OPS,
  ENV_RESPONSE_SCHEMAS,
  EnvRequestSchema,
  type EnvOp,
  type EnvRequest,
  type EnvResponse,
  type RequestId,
} from './env-schemas.ts';
import type { WireError } from './errors.ts';

/** A request without its id: what a client hands to its transport, which numbers it. */
export type EnvRequestBody = EnvRequest extends infer R ? (R extends EnvRequest ? Omit<R, 'id'> : never) : never;

/** Server side: a frame from a client, validated. */
export function decodeEnvRequest(data: RawData, isBinary: boolean): Decoded<EnvRequest> {
  const json = decodeJson(data, isBinary);
  return json.ok ? decodeWith(EnvRequestSchema, ENV_OPS, json.value) : json;
}

/** The text frame of a client request with its id (`{"id":…,"op":…}`). */
export function encodeEnvRequest(id: number, body: EnvRequestBody): string {
  // `body` always has `op`, so the stringified object is never `{}`.
  return `{"id":${id},${JSON.stringify(body).slice(1)}`;
}

/** The text frame of a server's result for request `id`. */
export function encodeResult(id: RequestId, result: unknown): string {
  return `{"op":"result","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}`;
}

/**
 * The text frame of a server's error for request `id` (null when the frame it answers had no
 * readable id).
 */
export function encodeError(id: RequestId | null, error: WireError): string {
  return `{"op":"error","id":${JSON.stringify(id)},"error":${JSON.stringify(error)}}`;
}

/** Client side: a parsed reply to a request of op `op`, validated against that op's result shape. */
export function decodeEnvResponse<O extends EnvOp>(op: O, raw: unknown): Decoded<EnvResponse<O>> {
  return decodeWith(ENV_RESPONSE_SCHEMAS[op], REPLY_OPS, raw);
}

const REPLY_OPS: ReadonlySet<string> = new Set(['result', 'error']);
