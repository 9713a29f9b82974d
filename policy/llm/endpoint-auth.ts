/**
 * The credentials of an endpoint and what must never be printed. A base URL may carry them
 * (`https://user:pass@host/v1`, as a proxy in front of vLLM often asks): fetch refuses such a URL
 * and quotes it whole in its error, so the user info is taken out of the URL and sent as a Basic
 * header instead (unless an API key is given, which goes as the bearer header). Every secret —
 * the key, the password, `user:pass` in plain and percent-encoded form, a query parameter named
 * like a key or token — is listed for `redact`.
 */

export interface EndpointAuth {
  /** The base URL without user info. */
  readonly baseURL: string;
  /** Headers for the SDK: the Basic header, or `authorization: null` when there is nothing to send. */
  readonly headers: Readonly<Record<string, string | null>>;
  /** The API key for the SDK's bearer header, when one is given. */
  readonly apiKey: string | undefined;
  /** Everything to cut out of a message before it is printed, logged or recorded. */
  readonly secrets: readonly string[];
  /** The base URL without user info or query, for messages and for an evaluation's config. */
  readonly endpoint: string;
}

export function endpointAuth(baseURL: string, apiKey: string | undefined): EndpointAuth {
  const key = apiKey !== undefined && apiKey !== '' ? apiKey : undefined;
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return { baseURL, headers: key === undefined ? { authorization: null } : {}, apiKey: key, secrets: key !== undefined ? [key] : [], endpoint: baseURL };
  }
  const user = url.username;
  const password = url.password;
  const decoded = { user: safeDecode(user), password: safeDecode(password) };
  const secrets = [key, password, decoded.password, user !== '' && password !== '' ? `${user}:${password}` : undefined, decoded.password !== '' ? `${decoded.user}:${decoded.password}` : undefined]
    .filter((s): s is string => s !== undefined && s !== '');
  // A key in the query (Azure-style `?api-key=…`) is a secret too; the endpoint shown drops the query.
  for (const [name, value] of url.searchParams) if (/key|token|secret|sig|pass/i.test(name) && value !== '') secrets.push(value);
  url.username = '';
  url.password = '';
  const headers: Record<string, string | null> = {};
  if (key === undefined) {
    // The SDK insists on a key; without one we send none at all (a null header is removed).
    headers.authorization = user !== '' || password !== '' ? `Basic ${Buffer.from(`${decoded.user}:${decoded.password}`).toString('base64')}` : null;
  }
  // Untouched when there is no user info: the SDK joins paths onto the text as given.
  const stripped = user !== '' || password !== '' ? url.toString() : baseURL;
  const endpoint = new URL(url.toString());
  endpoint.search = '';
  return { baseURL: stripped, headers, apiKey: key, secrets, endpoint: endpoint.toString() };
}

/** The base URL as an evaluation may write it (no user info, no query). */
export function publicEndpoint(baseURL: string): string {
  return endpointAuth(baseURL, undefined).endpoint;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
