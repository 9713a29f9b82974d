/**
 * Every limit of the WebSocket transport with its default, in one place so that the servers,
 * the clients and `docs/protocol.md` agree. ws's own defaults are permissive (a 100 MiB
 * `maxPayload`, no heartbeat), so each one is set explicitly here.
 */

/**
 * Servers: a TCP connection that has not completed its WebSocket upgrade within this many ms is
 * destroyed (also node's `headersTimeout` and `requestTimeout`). An honest client upgrades within
 * milliseconds; 5 s leaves room for a slow network and a loaded server.
 */
export const SERVER_HANDSHAKE_TIMEOUT_MS = 5_000;
/**
 * Servers: upgraded (authenticated) peers at once; an upgrade past it is refused with 503.
 * Sockets still in their handshake do not count (they have their own budget, below). Each
 * costs a file descriptor: keep this plus four times the pending cap below `ulimit -n` (often 1 024).
 */
export const SERVER_MAX_CONNECTIONS = 512;
/**
 * Servers: connections not upgraded yet (idle, mid-handshake, plain HTTP such as health
 * probes), over all addresses; a new one past it closes the oldest, so a new client always gets
 * its chance while idle sockets age out first.
 */
export const SERVER_MAX_PENDING_CONNECTIONS = 128;
/** Servers: connections not upgraded yet from one remote address (IPv6: one /64); a new one past it closes that address's oldest. */
export const SERVER_MAX_PENDING_PER_ADDRESS = 16;
/** Servers: how long peers get to answer a closing handshake the server started before their sockets are destroyed (ms). */
export const SERVER_CLOSE_GRACE_MS = 1_000;
/** Servers: the longest a drain (SIGTERM) waits for running calls and episodes before closing every peer (ms). */
export const SERVER_DRAIN_TIMEOUT_MS = 10_000;

/** Env server: largest inbound frame (bytes); a bigger one closes the socket with 1009. */
export const ENV_SERVER_MAX_PAYLOAD = 1024 * 1024;
/** Env server and event server: ping interval (ms); a peer that misses one pong is terminated. 0 disables. */
export const SERVER_HEARTBEAT_MS = 30_000;
/** Env server: instances one connection may hold at once; more get `TOO_MANY_INSTANCES`. */
export const MAX_INSTANCES_PER_CONNECTION = 256;
/** Env server: instances over all connections at once; more get `TOO_MANY_INSTANCES`, and `/readyz` answers 503 while at it. */
export const ENV_SERVER_MAX_INSTANCES = 4_096;
/**
 * Env server: instances one client holds over all its connections (a client is a token, or a
 * remote address when the server has no token), as on the AgentGym HTTP port: half the
 * server's, so one token can never fill the server (issue 40: it took 4 connections).
 */
export const ENV_SERVER_MAX_INSTANCES_PER_CLIENT = 2_048;
/** Env server: longest `reset`/`step`/`oracle` call (ms) before the reply is `ENV_TIMEOUT` and the instance is dropped. */
export const SERVER_CALL_TIMEOUT_MS = 60_000;
/**
 * Env server: per-connection token bucket (frames). It stops runaway clients, not work: see
 * docs/protocol.md#rate-limit for the measurement the default is sized from (`npx tsx
 * bench/ws-frame-rate.ts`). A connection that keeps sending once limited, `closeAfter` frames
 * beyond the refill, is closed with 1008.
 */
export const RATE_LIMIT = { perSecond: 50_000, burst: 5_000, closeAfter: 50_000 } as const;
/** Env server: outbound bytes queued for one peer that does not read before it is closed with 1008. */
export const ENV_SERVER_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/**
 * Env server: outbound bytes queued for all peers together. Past it, a peer holding more than
 * its share (this total over the number of connections) is closed with 1008, so a few peers that
 * never read cannot together hold the server's memory.
 */
export const ENV_SERVER_MAX_TOTAL_BUFFERED_BYTES = 128 * 1024 * 1024;

/**
 * Env server: frames per second over all connections (a token bucket), shared round-robin, and
 * the longest stretch of frame work in one event-loop turn before the server yields to I/O
 * (accepts, health probes, other sockets). With it, a flood from many connections, each under
 * its own rate limit, slows every connection to its fair share instead of freezing the server
 * (issue 40, finding 2; measured in docs/reliability.md#hardening-round-two-connection-budgets).
 */
export const ENV_SERVER_FRAME_BUDGET = { perSecond: 100_000, burst: 10_000, sliceMs: 5 } as const;
/** Env server: frames (or bytes) one connection may have waiting for the frame budget before its socket stops being read. */
export const ENV_SERVER_MAX_QUEUED_FRAMES = 256;
export const ENV_SERVER_MAX_QUEUED_BYTES = 1024 * 1024;
/**
 * Env server: once this many reply bytes wait for one peer (or its share of the total, if
 * smaller), none of its frames run until its socket drains: a peer that does not read stops
 * being served instead of making the server buffer for it.
 */
export const ENV_SERVER_PAUSE_BUFFERED_BYTES = 1024 * 1024;

/** Env client: deadline of one call (ms); past it the call rejects with `ENV_TIMEOUT`. */
export const CLIENT_CALL_TIMEOUT_MS = 30_000;
/**
 * Env client: ping interval (ms); a server that misses one pong is dropped (`ENV_LOST`). 0 disables.
 * An idle frozen server is found within two intervals; one with calls under way sooner (below).
 */
export const CLIENT_HEARTBEAT_MS = 15_000;
/**
 * Env client: after a call misses its deadline the server is suspect (nothing new goes to it) and
 * gets a probe (a ping); without its pong within this (ms, at most the call deadline) it is taken
 * for frozen and dropped. A frozen server thus costs a call deadline and a probe.
 */
export const CLIENT_PROBE_MS = 5_000;
/** Clients: WebSocket opening handshake deadline (ms). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Clients: largest inbound frame (bytes); observations of web envs can be large. */
export const CLIENT_MAX_PAYLOAD = 16 * 1024 * 1024;
/** Env client: once this many bytes wait in the socket, further requests queue until it drains. */
export const CLIENT_HIGH_WATER_MARK = 1024 * 1024;

/** Event server: largest inbound frame (bytes); subscribers only send one small `subscribe`. */
export const EVENT_SERVER_MAX_PAYLOAD = 64 * 1024;
/** Event server: above this many buffered bytes a subscriber stops getting high-rate events. */
export const EVENT_LOSSY_BUFFER_BYTES = 1024 * 1024;
/** Event server: above this many buffered bytes a subscriber is closed with 1008. */
export const EVENT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Close codes the transport uses (RFC 6455 section 7.4.1). 1006 is never sent: it means the TCP connection dropped (or a heartbeat terminated it). */
export const CloseCode = {
  /** Normal: the event stream ended, or a client closed. */
  NORMAL: 1000,
  /** The server is shutting down. */
  GOING_AWAY: 1001,
  /** Policy: the peer let too many bytes queue up, or a client received an invalid frame. */
  POLICY: 1008,
  /** A frame exceeded `maxPayload` (ws sends this itself). */
  TOO_BIG: 1009,
  /** The server failed: the event source errored. */
  INTERNAL: 1011,
} as const;
