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

/**
 * Frames per second the event server runs over all its connections, shared round-robin, with at
 * most `sliceMs` of frame work per event-loop turn (servers/listener/frame-budget.ts). An honest
 * observer sends one frame per connection (`subscribe`); the default leaves room for hundreds of
 * observers subscribing at once while a flood of bad frames from a token holder's connections
 * waits its turn (measured in docs/reliability.md#hardening-round-two-connection-budgets).
 */
export const EVENT_FRAME_BUDGET = { perSecond: 1_000, burst: 100, sliceMs: 5 } as const;

/** Frames (or bytes) one connection may have waiting for the frame budget before its socket stops being read. */
export const EVENT_MAX_QUEUED_FRAMES = 64;
export const EVENT_MAX_QUEUED_BYTES = 256 * 1024;

/**
 * Once this many bytes wait in a connection's socket, none of its frames run until it drains: a
 * peer that sends frames and never reads the error replies cannot grow the server. A subscriber's
 * socket holds at most `EVENT_SOCKET_HIGH_WATER_BYTES` plus one event, so it is never held back.
 */
export const EVENT_PAUSE_BUFFERED_BYTES = 1024 * 1024;
