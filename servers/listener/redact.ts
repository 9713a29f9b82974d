/**
 * What a log line may not carry: a token (issue 40, finding 6). A refused request is logged with
 * its path, and a client that put its token in the wrong place (`/TOKEN/T/…` for `/token/T/…`,
 * an absolute-form request line `GET http://host/token/T/…`, `?token=T` on a route that takes
 * none, a near-miss of the token) would write it into the operators' logs. Every string a log
 * line carries passes `redactText` first:
 *
 * - a `/token/<segment>` path segment, in any letter case, keeps `/token/` and loses the segment;
 * - a `token=` or `access_token=` value (a query, a form) is replaced;
 * - the user-info of an absolute URL (`http://user:password@host`) is replaced;
 * - an `Authorization`-style `Bearer <value>` or `Basic <value>` loses the value;
 * - and the server's own tokens, when it gives them (`secrets`), are replaced wherever they
 *   appear, as they are and URL-encoded. Tokens shorter than MIN_SECRET_LENGTH are left to the
 *   rules above: replacing every "ab" in a line would leave nothing readable.
 */

export const REDACTED = '[redacted]';

/** The shortest token replaced wherever it appears. */
export const MIN_SECRET_LENGTH = 4;

const RULES: readonly (readonly [RegExp, string])[] = [
  [/(\/token\/)[^/?#\s]*/gi, `$1${REDACTED}`],
  [/(^|[^A-Za-z0-9_])((?:access_)?token=)[^&#;\s]*/gi, `$1$2${REDACTED}`],
  [/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@\s]*@/g, `$1${REDACTED}@`],
  [/\b(Bearer|Basic)\s+\S+/gi, `$1 ${REDACTED}`],
];

/** The forms of each secret worth looking for: as given, and as a URL carries it. */
export function secretForms(secrets: readonly (string | undefined)[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with tokens and the places tokens go replaced by `[redacted]`. */
export function redactText(text: string, forms: readonly string[] = []): string {
  let out = text;
  for (const form of forms) out = out.split(form).join(REDACTED);
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
