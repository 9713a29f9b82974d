/**
 * The seam between the service's HTTP side (this folder) and what runs the episodes: servers/ may
 * not import the actors (docs/architecture.md), so the runner — the rollout system with the
 * token-exact LLM policy and the token records, actors/rollout-service/token-batch.ts — is handed
 * in by whoever composes the service (`actorgym rollout-server`, the bench).
 */
import type { BatchSpec } from './batch-plan.ts';

/** What a running batch tells its stream. */
export interface BatchSink {
  /** A scored episode's token record (demos/token-record.ts), once per requested episode. */
  record(record: unknown): void;
}

/** How a batch ended: its rollout summary, or why it failed (the policy endpoint down, episodes that could not be scored). */
export type BatchEnd = { readonly ok: true; readonly summary: unknown } | { readonly ok: false; readonly message: string; readonly summary?: unknown };

export interface RunningBatch {
  /** Resolves when every episode has ended (or been cancelled), never rejects. */
  readonly done: Promise<BatchEnd>;
  /** Stops starting episodes and aborts running ones; `done` then resolves. Idempotent. */
  cancel(reason: string): void;
}

/**
 * Starts a batch. Throws at once on what cannot run; an error carrying a string `field` (e.g. a
 * tokenizer folder that does not exist: `policy.tokenizer`) is answered 400 naming that field.
 */
export type BatchRunner = (spec: BatchSpec, sink: BatchSink) => RunningBatch;
