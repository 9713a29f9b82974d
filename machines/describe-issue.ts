/**
 * How a value that fails one of the domain schemas is described to a person: the first offending
 * field and what was expected there, e.g. `field 'algo': expected one of grpo|ppo|reinforce++|rloo`.
 * Every reader of data from disk or the wire (checkpoints, eval records, events) reports with it,
 * prefixed by the file or frame it read.
 */
import type { z } from 'zod';

export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'does not match its schema';
  const field = issue.path.length > 0 ? `field '${issue.path.map(String).join('.')}': ` : '';
  if (issue.code === 'invalid_value') return `${field}expected one of ${issue.values.map(String).join('|')}`;
  if (issue.code === 'invalid_type') {
    const missing = / received undefined$/.test(issue.message);
    return missing ? `${field}missing (expected ${issue.expected})` : `${field}expected ${issue.expected}, got ${issue.message.replace(/^.* received /, '')}`;
  }
  return `${field}${issue.message}`;
}

/** `schema.safeParse(value)` as a value or a described failure. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: describeIssue(parsed.error) };
}
