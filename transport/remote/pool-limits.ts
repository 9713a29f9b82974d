/**
 * The server pool's wait limit, apart from ws-pool.ts so that `--help` (cli/remote-options.ts)
 * can print it without loading the WebSocket client.
 */

/** How long a placement waits for a server when none is connected (ms). */
export const SERVER_WAIT_MS = 5_000;
