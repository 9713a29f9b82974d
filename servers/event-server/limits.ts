/**
 * The event server's own limits, with their defaults (docs/protocol.md#event-stream). The wire
 * limits it shares with the env server (payload, heartbeat, backlog) are in transport/wire/limits.ts.
 */

/**
 * Encoded bytes of events the replay log holds for late subscribers. Measured 2026-12-04 by
 * summing the frames a subscriber receives (docs/protocol.md#replay): a random-agent rollout of
 * the 1 440-task BabyAI train split sends 6.8 MiB, 0.74 MiB of it lossless, so the log keeps all
 * of it; a training run's lossless frames grow by about 36 KiB per learner step (16 tasks × 4
 * rollouts), so the log keeps ~900 steps of them once the high-rate ones are gone.
 */
export const EVENT_REPLAY_BYTES = 32 * 1024 * 1024;

/**
 * Bytes a subscriber's socket may hold unsent before the server waits for it to drain; the rest
 * of its backlog waits in the server's queue, where high-rate events can still be skipped.
 */
export const EVENT_SOCKET_HIGH_WATER_BYTES = 256 * 1024;

/** The longest `close()` waits for every subscriber to receive its backlog and `end` (ms). */
export const EVENT_DRAIN_TIMEOUT_MS = 10_000;
