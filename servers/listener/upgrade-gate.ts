/**
 * Who may become a WebSocket peer, decided in the HTTP upgrade handler before any WebSocket
 * exists: a draining server refuses (503), then a browser page of a foreign origin (403), then a
 * missing or wrong bearer token (401). The checks run in that order, so a client of a draining
 * server is told to go elsewhere before it is asked for a token. A per-address budget for sockets
 * that have not authenticated yet would be one more check here.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestToken, tokenMatches } from '../../transport/wire/auth.ts';
import type { WireError, WireErrorCode } from '../../transport/wire/errors.ts';
import { originAllowed } from '../../transport/wire/origin.ts';

export interface UpgradeGateOptions {
  /** Bearer token every upgrade must present; undefined admits all. */
  readonly token: string | undefined;
  /** Browser origins allowed besides the server's own loopback pages (`*`: any). */
  readonly allowOrigins: readonly string[];
}

/** Why an upgrade is refused: the HTTP status and the wire error in the body. */
export interface Refusal {
  readonly status: 401 | 403 | 503;
  readonly error: WireError & { readonly code: WireErrorCode };
}

export class UpgradeGate {
  constructor(private readonly options: UpgradeGateOptions) {}

  /** How the peer authenticated, for the `connection.authenticated` log line. */
  get auth(): 'none' | 'token' {
    return this.options.token === undefined ? 'none' : 'token';
  }

  /** The refusal for this upgrade, or undefined when it may proceed. */
  check(request: IncomingMessage, draining: boolean): Refusal | undefined {
    if (draining) return { status: 503, error: { code: 'SERVER_DRAINING', message: 'the server is shutting down; connect to another one' } };
    if (!originAllowed(request, this.options.allowOrigins)) {
      return { status: 403, error: { code: 'FORBIDDEN_ORIGIN', message: `origin ${request.headers.origin} is not allowed (see --allow-origin)` } };
    }
    if (this.options.token !== undefined && !tokenMatches(requestToken(request), this.options.token)) {
      return { status: 401, error: { code: 'UNAUTHORIZED', message: 'missing or wrong bearer token' } };
    }
    return undefined;
  }
}

const STATUS_TEXT: Readonly<Record<Refusal['status'], string>> = { 401: 'Unauthorized', 403: 'Forbidden', 503: 'Service Unavailable' };

/** Answers a refused upgrade with a plain HTTP response (a JSON `{error}` body) and ends the socket. */
export function refuseUpgrade(socket: Duplex, { status, error }: Refusal): void {
  const body = JSON.stringify({ error });
  const challenge = status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${challenge}Connection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
