/**
 * A request the service refuses, with the HTTP status and the field it is about: 400 for a body
 * that cannot run (an unknown env or task, a count past the split, a refused schedule), 503 when
 * the env servers cannot be reached or the service is full or draining. Answered as
 * `{ error: { message, field, code } }` (`code` only where a program acts on it).
 */
import type { ServerResponse } from 'node:http';

export class RequestError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 413 | 415 | 503,
    message: string,
    /** The request field (dotted path) the problem is about; absent for a problem of the request as a whole. */
    readonly field?: string,
    /** A code for a program to act on (`TOO_MANY_CONNECTIONS`: retry on a new connection later); absent for most. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Answers `{ error: { message, field?, code? } }` with the error's status (503 adds `Retry-After: 1`). */
export function sendRequestError(res: ServerResponse, error: RequestError): void {
  const { message, field, code } = error;
  const body = JSON.stringify({ error: { message, ...(field !== undefined ? { field } : {}), ...(code !== undefined ? { code } : {}) } });
  res.writeHead(error.status, {
    'Content-Type': 'application/json',
    ...(error.status === 503 ? { 'Retry-After': '1' } : {}),
    ...(error.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}),
    // A connection refused for the cap is not kept: the client comes back on a new one.
    ...(code === 'TOO_MANY_CONNECTIONS' ? { Connection: 'close' } : {}),
  });
  res.end(`${body}\n`);
}

/** Any thrown value as a RequestError: unexpected ones are a 503 with their message, never a crash. */
export function asRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  return new RequestError(503, error instanceof Error ? error.message : String(error));
}
