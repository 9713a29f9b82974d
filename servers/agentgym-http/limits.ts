/**
 * Every limit of the AgentGym HTTP server with its default, in one place so that the server,
 * `actorgym serve --help` and docs/agentgym-http.md agree. Node's own defaults suit browsers
 * (5 s keep-alive, no cap on connections, an idle socket that never sends a request lives on),
 * so each one is set explicitly here.
 */

/** Action strings are short; 64 KiB is generous and keeps a bad client from filling memory. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Instances over all clients at once (`--http-max-instances`); `/readyz` answers 503 while at it. */
export const DEFAULT_MAX_INSTANCES = 4096;
/**
 * Instances one client holds at once (`--http-max-instances-per-client`): half the server's, so
 * one client can never lock the others out, and still room for an AgentGym-RL job that never
 * closes its 64-256 instances per rollout step over several steps of one idle TTL. A client is
 * a token, or a remote address when the server has no token.
 */
export const DEFAULT_MAX_INSTANCES_PER_CLIENT = 2048;
/** 10 minutes: longer than any single LLM turn, short enough to stop a leak. */
export const DEFAULT_IDLE_TTL_MS = 10 * 60_000;
/** Idle keep-alive sockets stay open this long (Node's default, 5 s, is shorter than an LLM turn). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 60_000;
/**
 * A connection must carry an admitted request (a valid token, or any request without one) this
 * soon after it opens, and every later header must be complete this soon after it starts (Node's
 * `headersTimeout`); else it is destroyed. Matches the WebSocket servers' handshake timeout.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 5_000;
/** A request's body must have arrived this soon after its first byte (Node's `requestTimeout`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * Sockets that carried an admitted request, at once; a request on a new socket past it is
 * answered 503 `TOO_MANY_CONNECTIONS`. Sockets not admitted yet do not count (issue 40).
 */
export const DEFAULT_MAX_CONNECTIONS = 512;
/** Sockets not admitted yet (idle, health probes, refused requests); past it the oldest is closed. */
export const DEFAULT_MAX_PENDING_CONNECTIONS = 128;
/** Sockets not admitted yet from one remote address (IPv6: one /64); past it that address's oldest is closed. */
export const DEFAULT_MAX_PENDING_PER_ADDRESS = 16;
/** On `drain`, how long requests already running may take before every connection is closed (ms). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/**
 * Requests one socket may have being served, or answered and not yet written to the kernel, at
 * once; later ones on it wait their turn (HTTP/1.1 answers in order anyway). AgentGym's clients
 * send one request at a time per socket; a client that pipelines requests and never reads the
 * replies is held to one reply in memory beyond its share of the buffered-bytes budget.
 */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT_PER_SOCKET = 1;
/** Requests waiting on one socket past which it is closed: pipelining this deep is no honest client's. */
export const DEFAULT_MAX_HELD_REQUESTS_PER_SOCKET = 256;
/** A socket whose requests have waited this long for it to read its replies is closed (ms), like a peer missing a heartbeat. */
export const DEFAULT_HELD_TIMEOUT_MS = 30_000;
