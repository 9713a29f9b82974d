/**
 * Errors of the policy server in OpenAI's shape, `{ error: { message, type, param, code } }`, so
 * an OpenAI client raises its usual typed exceptions (BadRequestError, AuthenticationError, …)
 * with our message. Each carries a documented literal code.
 */
import type { ServerResponse } from 'node:http';
import { errorMessage } from '../../envs/error-message.ts';

export type ApiErrorCode =
  /** The body is not JSON, or a field has the wrong type or value (400). */
  | 'invalid_request'
  /** The conversation is not one the served prompt template rendered (400). */
  | 'invalid_conversation'
  /** No or a wrong bearer token (401). */
  | 'invalid_api_key'
  /** No such route (404). */
  | 'unknown_url'
  /** A known route with the wrong method (405). */
  | 'method_not_allowed'
  /** The body is larger than `maxBodyBytes` (413). */
  | 'body_too_large'
  /** The decode queue is full (503, `Retry-After: 1`). */
  | 'server_busy'
  /** The server is shutting down (503). */
  | 'server_closing'
  /** A request on a new connection while the server holds `maxConnections` authenticated ones (503, `Retry-After: 1`, the connection closed); the same code as every actorgym server. */
  | 'TOO_MANY_CONNECTIONS'
  | 'forbidden_origin'
  /** The policy failed (500). */
  | 'internal_error';

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 413 | 500 | 503,
    readonly code: ApiErrorCode,
    message: string,
    /** The request field at fault (`messages[2].content`), when there is one. */
    readonly param: string | null = null,
  ) {
    super(message);
  }

  get type(): 'invalid_request_error' | 'server_error' {
    return this.status >= 500 ? 'server_error' : 'invalid_request_error';
  }

  toJSON(): { error: { message: string; type: string; param: string | null; code: ApiErrorCode } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** Any failure as an ApiError: ours pass through, anything else is a 500 that names it. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(500, 'internal_error', `the policy failed: ${errorMessage(error)}`);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  const headers: Record<string, string> = {};
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  if (error.code === 'server_busy' || error.code === 'TOO_MANY_CONNECTIONS') headers['retry-after'] = '1';
  if (error.code === 'TOO_MANY_CONNECTIONS') headers['connection'] = 'close';
  // After an oversized body the rest of it is still on the socket: close rather than read it.
  if (error.status === 413) headers['connection'] = 'close';
  sendJson(res, error.status, error.toJSON(), headers);
}
