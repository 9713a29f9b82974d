/**
 * fast-check arbitraries for the hostile values both server fuzzers send (issue 24): strings
 * that break naive code (lone surrogates, NUL, RTL overrides, prototype keys, lengths just past
 * the documented limits), numbers JSON can carry but code mishandles, nesting deep enough to
 * overflow a recursive `JSON.stringify`, and text that is almost JSON.
 */
import fc from 'fast-check';

/** Strings that have broken parsers, loggers and maps before; lengths straddle the wire limits (64, 128, 4096). */
const NASTY_STRINGS = [
  '', ' ', '\u0000', '\ud800', '\udfff', '\ud83e', 'é', 'e\u0301', '🤖🤖', '\u202eevil', '\ufeff', '\r\n', '\\', '"',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'i0', 'i-1', 'i1.5', 'NaN', 'null', 'undefined',
  'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(4096), 'x'.repeat(4097),
] as const;

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 24 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 },
  // Long, but far below the 1 MiB frame limit: large actions must cost the sender, not the server.
  { arbitrary: fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'ab'.repeat(n)), weight: 1 },
);

/** Numbers JSON can carry that integer fields must refuse (or, for ids, that must not alias a real one). */
export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, -0, 0.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 64, -(2 ** 63), Number.MIN_VALUE, 1e-300, 4096, 4097),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Number literals as JSON text: `1e999` parses to Infinity, a 400-digit integer to a float. */
export const nastyNumberText: fc.Arbitrary<string> = fc.constantFrom('1e999', '-1e999', `1${'0'.repeat(400)}`, '-0', '0.0', '1E2', '9007199254740993');

/**
 * JSON text nested `depth` levels, built as text: `JSON.stringify` of the parsed value overflows
 * the stack from a few thousand levels, so a server that echoes a value back can crash on it.
 */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('array', 'object'), fc.integer({ min: 2, max: 20_000 }))
  .map(([kind, depth]) => (kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '0' + '}'.repeat(depth)));

/** Any JSON value of small depth, with nasty leaves. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  nastyString,
  nastyNumber,
  fc.constantFrom(null, true, false, [], {}),
);

/** A JSON field value as text: a nasty value serialised, or raw text no `JSON.stringify` produces. */
export const anyJsonText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: anyJson.map((value) => JSON.stringify(value) ?? 'null'), weight: 6 },
  { arbitrary: nastyNumberText, weight: 1 },
  { arbitrary: deepJsonText, weight: 1 },
);

/** Text that is not JSON, or JSON of the wrong shape for a request (array, scalar). */
export const garbageText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', '{', '}', '{oops', '{"id":1,', 'null', '[]', '[1,2,3]', '"text"', '42', 'true', '{"id":1}{"id":2}', '\u0000', '{"id":1,"op":"spec","env":"babyai"}\u0000'),
  fc.string({ unit: 'binary', maxLength: 64 }),
  deepJsonText,
);

/** `text` cut at a position in (0, length): truncated JSON. */
export function truncate(text: string, fraction: number): string {
  return text.slice(0, Math.max(1, Math.min(text.length - 1, Math.floor(text.length * fraction))));
}
