/**
 * Who may become a WebSocket peer, decided in the HTTP upgrade handler before any WebSocket
 * exists: a draining server refuses (503), then a browser page of a foreign origin (403), then a
 * missing or wrong bearer token (401). The checks run in that order, so a client of a draining
 * server is told to go elsewhere before it is asked for a token. Sockets that have not
 * authenticated have their own budget (pending-sockets.ts); upgraded peers are capped by the
 * listener after this gate. Each admitted peer is named a *client* for per-client quotas: the
 * hash of the token it presented, or its remote address when the server has no token.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestToken, tokenMatches } from '../../transport/wire/auth.ts';
import type { WireError, WireErrorCode } from '../../transport/wire/errors.ts';
import { originAllowed } from '../../transport/wire/origin.ts';
import { addressKey } from './pending-sockets.ts';

export interface UpgradeGateOptions {
  /** Bearer token every upgrade must present (several: any of them); undefined or empty admits all. */
  readonly token: string | readonly string[] | undefined;
  /** Browser origins allowed besides the server's own loopback pages (`*`: any). */
  readonly allowOrigins: readonly string[];
}

/** Why an upgrade is refused: the HTTP status and the wire error in the body. */
export interface Refusal {
  readonly status: 401 | 403 | 503;
  /** `TOO_MANY_CONNECTIONS`: the listener's cap on upgraded peers (an HTTP refusal only, never a frame). */
  readonly error: Omit<WireError, 'code'> & { readonly code: WireErrorCode | 'TOO_MANY_CONNECTIONS' };
}

export class UpgradeGate {
  readonly #tokens: readonly string[];

  constructor(private readonly options: UpgradeGateOptions) {
    const { token } = options;
    this.#tokens = token === undefined ? [] : typeof token === 'string' ? [token] : [...token];
  }

  /** How the peer authenticated, for the `connection.authenticated` log line. */
  get auth(): 'none' | 'token' {
    return this.#tokens.length === 0 ? 'none' : 'token';
  }

  /** Who an admitted upgrade counts as for per-client quotas: `token:` and its hash, else `addr:` and the address key. */
  client(request: IncomingMessage): string {
    if (this.#tokens.length === 0) return `addr:${addressKey(request.socket.remoteAddress)}`;
    const token = requestToken(request) ?? '';
    return `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
  }

  /** The refusal for this upgrade, or undefined when it may proceed. */
  check(request: IncomingMessage, draining: boolean): Refusal | undefined {
    if (draining) return { status: 503, error: { code: 'SERVER_DRAINING', message: 'the server is shutting down; connect to another one' } };
    if (!originAllowed(request, this.options.allowOrigins)) {
      return { status: 403, error: { code: 'FORBIDDEN_ORIGIN', message: `origin ${request.headers.origin} is not allowed (see --allow-origin)` } };
    }
    if (this.#tokens.length > 0 && !this.matches(requestToken(request))) {
      return { status: 401, error: { code: 'UNAUTHORIZED', message: 'missing or wrong bearer token' } };
    }
    return undefined;
  }

  /** Compares with every token, so the time taken does not say which one came close. */
  private matches(given: string | undefined): boolean {
    let matched = false;
    for (const token of this.#tokens) if (tokenMatches(given, token)) matched = true;
    return matched;
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
