/** Parsing of query parameters and form fields shared by both sites' routes. */

/** A 1-based page number from `?page=`; anything else is page 1. */
export function pageParam(value: string | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** A form field as trimmed text ('' when missing or a file). */
export function field(body: Readonly<Record<string, unknown>>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A whole number written in decimal digits, or undefined (so `2.5`, `1e3` and `` are rejected). */
export function wholeNumber(text: string): number | undefined {
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** Number of pages for `total` rows at `size` per page (at least 1). */
export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}
