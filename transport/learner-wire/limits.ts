/**
 * Limits and constants of the learner protocol (docs/distributed-training.md), beside the env
 * protocol's (../wire/limits.ts) and set explicitly for the same reason: ws's defaults are
 * permissive. Weights frames are the big ones (4 bytes a parameter), trajectory groups the next.
 */

/** The protocol version a worker's `hello` must name; the learner refuses any other. */
export const LEARNER_PROTOCOL = 1;
/** Learner server: largest inbound frame (bytes). A group of G episodes of token ids, masks and log-probs fits many times over. */
export const LEARNER_SERVER_MAX_PAYLOAD = 64 * 1024 * 1024;
/** Worker: largest inbound frame (bytes): a weights frame of a model of up to ~250M float32 parameters. */
export const WORKER_MAX_PAYLOAD = 1024 * 1024 * 1024;
/**
 * Learner server: bytes queued for one worker (weights frames it has not read) before it is closed
 * with 1008; it reconnects and gets the current version only. Default 1 GiB.
 */
export const LEARNER_MAX_BUFFERED_BYTES = 1024 * 1024 * 1024;
/** Learner server: a connection that has not sent a valid `hello` this many ms after opening is closed (1008). */
export const LEARNER_HELLO_TIMEOUT_MS = 10_000;
/** Learner: times one group may be handed out again after its worker failed or left before the step is rejected. */
export const LEARNER_MAX_GROUP_ATTEMPTS = 5;
/** Worker: reconnect delays when the learner is away: exponential with jitter, capped (ms). */
export const WORKER_RECONNECT_BACKOFF = { initialMs: 200, maxMs: 5_000, factor: 2 } as const;
/**
 * Learner server: frames per second it runs over all worker connections, shared round-robin, with
 * at most `sliceMs` of frame work per event-loop turn (servers/listener/frame-budget.ts). An honest
 * worker sends a `group` frame per trajectory group and a `done` per assignment, a few per second
 * (measured in docs/reliability.md#hardening-round-two-connection-budgets); the default is far above
 * a fleet's, and holds a token holder's flood to its share.
 */
export const LEARNER_FRAME_BUDGET = { perSecond: 10_000, burst: 1_000, sliceMs: 5 } as const;
/** Learner server: frames (or bytes) one connection may have waiting for the frame budget before its socket stops being read. */
export const LEARNER_MAX_QUEUED_FRAMES = 256;
export const LEARNER_MAX_QUEUED_BYTES = 1024 * 1024;
/**
 * Learner server: reply bytes other than weights frames (welcome, assign, cancel, error frames)
 * waiting for one worker past which its frames wait for it to read, past which it is closed
 * (1008), and for all workers together (past it, a worker over its share is closed). Weights
 * frames are one buffer shared by every worker, held by `LEARNER_MAX_BUFFERED_BYTES` instead.
 */
export const LEARNER_PAUSE_REPLY_BYTES = 1024 * 1024;
export const LEARNER_MAX_REPLY_BYTES = 64 * 1024 * 1024;
export const LEARNER_MAX_TOTAL_REPLY_BYTES = 128 * 1024 * 1024;
