/**
 * JSON objects as ordered lists of fields for the fuzzers (issue 24), so that a request can be
 * generated well-formed and then mutated the ways clients get it wrong: a field dropped, given
 * a value of the wrong type, repeated (JSON.parse keeps the last), or an unknown field added.
 * Values that name an instance are references (`R`) the session resolves when it sends them.
 */
import fc from 'fast-check';
import { anyJsonText, nastyString } from './fuzz-junk.ts';

export type FieldValue<R> = { readonly kind: 'ref'; readonly ref: R } | { readonly kind: 'json'; readonly text: string };
export type Field<R> = readonly [key: string, value: FieldValue<R>];

export const json = (text: string): FieldValue<never> => ({ kind: 'json', text });
export const str = (value: string): FieldValue<never> => json(JSON.stringify(value));
export const ref = <R>(value: R): FieldValue<R> => ({ kind: 'ref', ref: value });

export type Mutation =
  | { readonly kind: 'drop'; readonly at: number }
  | { readonly kind: 'retype'; readonly at: number; readonly text: string }
  | { readonly kind: 'extra'; readonly key: string; readonly text: string }
  | { readonly kind: 'duplicate'; readonly at: number; readonly text: string };

/** One mutation, or `undefined` (weight 10 of 16) for a frame left as generated. */
export function mutation(fieldNames: readonly string[]): fc.Arbitrary<Mutation | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 10 },
    { arbitrary: fc.nat().map((at): Mutation => ({ kind: 'drop', at })), weight: 1 },
    { arbitrary: fc.tuple(fc.nat(), anyJsonText).map(([at, text]): Mutation => ({ kind: 'retype', at, text })), weight: 3 },
    { arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...fieldNames), nastyString), anyJsonText).map(([key, text]): Mutation => ({ kind: 'extra', key, text })), weight: 1 },
    { arbitrary: fc.tuple(fc.nat(), anyJsonText).map(([at, text]): Mutation => ({ kind: 'duplicate', at, text })), weight: 1 },
  );
}

export function mutate<R>(fields: readonly Field<R>[], m: Mutation | undefined): readonly Field<R>[] {
  if (m === undefined) return fields;
  if (m.kind === 'extra') return [...fields, [m.key, json(m.text)]];
  if (fields.length === 0) return fields;
  const at = m.at % fields.length;
  const key = fields[at]?.[0] ?? 'x';
  switch (m.kind) {
    case 'drop':
      return fields.filter((_, i) => i !== at);
    case 'retype':
      return fields.map((field, i) => (i === at ? [key, json(m.text)] : field));
    case 'duplicate':
      return [...fields, [key, json(m.text)]];
  }
}

/** The object's JSON text; `resolve` gives each reference's JSON text. */
export function fieldsText<R>(fields: readonly Field<R>[], resolve: (ref: R) => string): string {
  return `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${value.kind === 'json' ? value.text : resolve(value.ref)}`).join(',')}}`;
}
