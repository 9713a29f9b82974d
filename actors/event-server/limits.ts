/**
 * The event server's own limits, with their defaults (docs/protocol.md#event-stream). The wire
 * limits it shares with the env server (payload, heartbeat, backlog) are in streams/wire/limits.ts.
 */

/**
 * Encoded bytes of events the replay log holds for late subscribers. A rollout of the 1 440-task
 * BabyAI train split emits about 10 MiB in all, its lossless events under 1 MiB; a training run's
 * lossless events grow by roughly 40 KiB per learner step (16 tasks × 4 rollouts).
 */
export const EVENT_REPLAY_BYTES = 32 * 1024 * 1024;

/**
 * Bytes a subscriber's socket may hold unsent before the server waits for it to drain; the rest
 * of its backlog waits in the server's queue, where high-rate events can still be skipped.
 */
export const EVENT_SOCKET_HIGH_WATER_BYTES = 256 * 1024;

/** The longest `close()` waits for every subscriber to receive its backlog and `end` (ms). */
export const EVENT_DRAIN_TIMEOUT_MS = 10_000;
