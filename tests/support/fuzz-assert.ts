/**
 * `fc.assert` for the server fuzz tests (issue 24): a fixed seed, no shrinking (shrinking a
 * session against live servers replays it hundreds of times), and a failure message that stays
 * readable: the broken rule first, then how to replay the run, then the counterexample cut short
 * (its frames can hold megabyte strings and JSON nested 20,000 deep).
 */
import fc from 'fast-check';

const EXAMPLE_CHARS = 2_000;

/** `path` (from a failure's message) replays that one run of the seed. */
export async function assertFuzz<T>(
  property: fc.IAsyncPropertyWithHooks<T>,
  options: { readonly seed: number; readonly numRuns: number; readonly path?: string },
): Promise<void> {
  await fc.assert(property, {
    ...options,
    endOnFailure: true,
    reporter: (details) => {
      if (!details.failed) return;
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      const example = fc.stringify(details.counterexample);
      throw new Error(
        `${cause}\n  in run ${details.numRuns} of seed ${details.seed}; replay it alone with assertFuzz(…, { seed: ${details.seed}, numRuns: 1, path: ${JSON.stringify(details.counterexamplePath)} })\n` +
          `  counterexample: ${example.slice(0, EXAMPLE_CHARS)}${example.length > EXAMPLE_CHARS ? ` … (${example.length} characters)` : ''}`,
      );
    },
  });
}
