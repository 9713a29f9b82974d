/**
 * Links an attempt's own abort (its deadline) to its client's close (endpoint-caller.ts), so that
 * `close()` ends the request in flight at once, whatever phase it is in.
 */
/** Aborts `controller` when `closing` does (already or later); returns the unhooking. */
export function abortOnClose(closing: AbortSignal | undefined, controller: AbortController): () => void {
  if (closing === undefined) return () => undefined;
  const abort = () => controller.abort();
  if (closing.aborted) abort();
  else closing.addEventListener('abort', abort, { once: true });
  return () => closing.removeEventListener('abort', abort);
}
