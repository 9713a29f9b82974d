/**
 * The checkpoint server's decode batches: the requests that arrive together decoded in one `act`
 * call, as the agent actor does (actors/agent.actor.ts) — request-batcher.ts, with the bounds below.
 *
 * Bounds: a batch holds at most `maxBatch` requests (default 256; the rest wait for the next);
 * the queue holds at most `maxQueue` (default 1024); a request beyond it is refused at once with
 * a 503 `server_busy`.
 */
import type { Decision } from '../../policy/policy.ts';
import type { TransformerActRequest } from '../../policy/transformer-policy.ts';
import { RequestBatcher } from './request-batcher.ts';

export const DEFAULT_MAX_BATCH = 256;
export const DEFAULT_MAX_QUEUE = 1024;

export class DecodeBatcher extends RequestBatcher<TransformerActRequest, Decision> {
  constructor(act: (batch: readonly TransformerActRequest[]) => Promise<readonly Decision[]>, options: { readonly maxBatch: number; readonly maxQueue: number }) {
    super(act, { ...options, what: 'decode' });
  }
}
