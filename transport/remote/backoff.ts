/**
 * Reconnect delays of an env-server pool (ws-pool.ts): exponential, capped, with jitter, so a
 * restarted server is found again within `maxMs` of coming back, and the clients of a fleet do
 * not all knock at the same instant.
 */

export interface BackoffOptions {
  /** Delay ceiling of the first retry (ms). Default 100. */
  readonly initialMs: number;
  /** Largest delay ceiling (ms): a server that comes back is tried again within this. Default 2 000. */
  readonly maxMs: number;
  /** Growth of the ceiling per failed attempt. Default 2. */
  readonly factor: number;
}

export const RECONNECT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 2_000, factor: 2 };

/**
 * The wait before reconnect attempt `attempt` (0 for the first after a loss): "equal jitter",
 * half of the ceiling fixed and half drawn at random, so a delay never collapses to zero (a
 * tight loop against a dead port) yet two clients rarely retry together.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * options.factor ** Math.max(0, attempt));
  return ceiling / 2 + (random() * ceiling) / 2;
}
