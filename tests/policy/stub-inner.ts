import type { ActRequest, Decision } from '../../policy/policy.ts';
import type { TransformerPolicy } from '../../policy/transformer-policy.ts';

/** A stand-in model for FilteredPolicy tests: acts by `choose` and remembers what it read. */
export function recordingInner(choose: (request: ActRequest) => string) {
  const seen: ActRequest[] = [];
  const inner = {
    name: 'stub',
    version: 0,
    async act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
      seen.push(...batch);
      return batch.map((r) => ({ action: choose(r) }));
    },
    release: () => ({ tokens: [1], mask: [0], logProbs: [0] }),
  };
  return { seen, inner: inner as unknown as TransformerPolicy };
}
