/**
 * Error bodies in the shape the `openai` SDK reads. The SDK takes an error's words from
 * `body.error` only (`{"error": {"message": …}}`, OpenAI's and newer vLLM's shape); vLLM before
 * 0.6 and FastAPI-style servers answer `{"object": "error", "message": …}` or `{"detail": …}` at
 * the top level, which the SDK reduces to "400 status code (no body)". This fetch wraps such a
 * body as `{"error": body}` so that the server's words reach the error, whatever its version.
 */

type Fetch = typeof fetch;

export function errorBodyFetch(inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const text = await response.text();
    // The text is already decoded and may change length: the old framing headers no longer hold.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(wrapped(text) ?? text, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The body as `{"error": …}` when it carries its message at the top level; undefined when it needs nothing. */
export function wrapped(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'error' in body) return undefined;
  const record = body as Record<string, unknown>;
  if (record.message !== undefined) return JSON.stringify({ error: record });
  if (record.detail !== undefined) {
    const message = typeof record.detail === 'string' ? record.detail : JSON.stringify(record.detail);
    return JSON.stringify({ error: { ...record, message } });
  }
  return undefined;
}

