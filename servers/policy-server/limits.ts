/**
 * The policy server's limits and their defaults, apart from policy-server.ts so that
 * `actorgym serve-policy --help` can print them without loading the server.
 */

/** A conversation of a few hundred turns of BabyAI views fits several times over. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A request's headers and body must arrive within this (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** On shutdown, running completions get this long (ms) to finish. */
export const DEFAULT_DRAIN_MS = 10_000;
/** Idle keep-alive sockets stay open this long (an agent's env step may take a while). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 60_000;
