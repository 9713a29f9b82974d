/**
 * The rollout service's limits and their defaults, apart from the server so that
 * `actorgym rollout-server --help` can print them without loading it.
 */

/** A request is a small JSON object (a few thousand task ids at most). */
export const DEFAULT_ROLLOUT_MAX_BODY_BYTES = 1024 * 1024;
/** Batches running at once; more get 503 (`/readyz` says `at capacity`). */
export const DEFAULT_MAX_BATCHES = 8;
/** Episodes running at once in one batch; a request asking more gets this many. */
export const DEFAULT_MAX_CONCURRENCY = 64;
/** Episodes in one batch, at most. */
export const DEFAULT_MAX_EPISODES = 65_536;
/** On shutdown, running batches get this long (ms) to finish; then they are cancelled. */
export const DEFAULT_ROLLOUT_DRAIN_MS = 30_000;
