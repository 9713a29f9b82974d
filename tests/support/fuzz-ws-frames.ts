/**
 * fast-check arbitraries of env-protocol frames (docs/protocol.md#env-protocol) for the WS fuzz
 * test (issue 24): every op, well-formed or mutated (a field dropped, retyped, duplicated, an
 * unknown field), unknown ops, wrong ids, truncated JSON, binary frames, garbage text, invalid
 * UTF-8, oversize frames and pings. Frames name instances symbolically (`InstanceRef`): the
 * session resolves them against the instances its connection holds when it sends them, so the
 * same generated value replays the same lifecycle (step before reset, close twice, use after
 * close, another connection's instance).
 */
import fc from 'fast-check';
import { fieldsText, json, mutate, mutation, ref, str, type Field } from './fuzz-json-fields.ts';
import { anyJsonText, garbageText, nastyString, truncate } from './fuzz-junk.ts';

/** Which instance a frame names; resolved at send time by the session. */
export type InstanceRef =
  /** One of this connection's open instances (`pick` modulo their count); a foreign id when it has none. */
  | { readonly kind: 'own'; readonly pick: number }
  /** One this connection closed before; a foreign id when it closed none. */
  | { readonly kind: 'closed'; readonly pick: number }
  /** `i<n>`: another connection's instance (ids are sequential server-wide), or none at all. */
  | { readonly kind: 'foreign'; readonly n: number }
  /** `back` ids below the newest the fuzzer has seen created: most likely the honest client's, live. */
  | { readonly kind: 'recent'; readonly back: number };

/** The request id: unique per session (an integer or a string), or raw JSON text (wrong type, negative, huge…). */
export type IdSpec = { readonly kind: 'fresh'; readonly asString: boolean } | { readonly kind: 'raw'; readonly text: string } | { readonly kind: 'missing' };

export interface OpFrame {
  readonly kind: 'op';
  readonly id: IdSpec;
  /** JSON text of `op`: a known op, an unknown one, or not a string. */
  readonly op: string;
  /** The fields after `id` and `op`, in order; a key may repeat (JSON.parse keeps the last). */
  readonly fields: readonly Field<InstanceRef>[];
  /** True when nothing was mutated: the frame is valid if its values are; the session checks its reply against the model. */
  readonly clean: boolean;
  /** `text`, or sent as a binary frame, or cut short (fraction of its length kept). */
  readonly encoding: { readonly kind: 'text' } | { readonly kind: 'binary' } | { readonly kind: 'truncated'; readonly keep: number };
}

export type WsFuzzFrame =
  | OpFrame
  | { readonly kind: 'garbage'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'ping'; readonly bytes: Uint8Array }
  /** A text frame that is not UTF-8: ws closes the connection with 1007. */
  | { readonly kind: 'bad-utf8'; readonly bytes: Uint8Array }
  /** A frame just over `maxPayload` bytes: closed with 1009. */
  | { readonly kind: 'oversize' };

const instanceRef: fc.Arbitrary<InstanceRef> = fc.oneof(
  { arbitrary: fc.nat(15).map((pick) => ({ kind: 'own' as const, pick })), weight: 6 },
  { arbitrary: fc.nat(15).map((pick) => ({ kind: 'closed' as const, pick })), weight: 1 },
  { arbitrary: fc.oneof(fc.nat(64), fc.nat(5_000)).map((n) => ({ kind: 'foreign' as const, n })), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 40 }).map((back) => ({ kind: 'recent' as const, back })), weight: 2 },
);
const instanceField = instanceRef.map((r) => ref(r));

/** Field values a well-formed frame of each op may carry; some are valid-but-wrong (unknown env, task). */
function opFields(tasks: readonly string[], actions: readonly string[]) {
  const env = fc.oneof({ arbitrary: fc.constant(str('babyai')), weight: 8 }, { arbitrary: nastyString.map(str), weight: 1 });
  const task = fc.oneof({ arbitrary: fc.constantFrom(...tasks).map(str), weight: 6 }, { arbitrary: nastyString.filter((s) => s.length >= 1 && s.length <= 4096).map(str), weight: 1 });
  const action = fc.oneof({ arbitrary: fc.constantFrom(...actions).map(str), weight: 4 }, { arbitrary: nastyString.map(str), weight: 1 });
  type Fields = readonly Field<InstanceRef>[];
  const byOp: Record<string, fc.Arbitrary<Fields>> = {
    spec: env.map((e): Fields => [['env', e]]),
    tasks: fc.tuple(env, fc.constantFrom('train', 'test')).map(([e, s]): Fields => [['env', e], ['split', str(s)]]),
    create: env.map((e): Fields => [['env', e]]),
    reset: fc
      .tuple(instanceField, task, fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), { nil: undefined }))
      .map(([i, t, seed]): Fields => (seed === undefined ? [['instance', i], ['taskId', t]] : [['instance', i], ['taskId', t], ['seed', json(String(seed))]])),
    step: fc.tuple(instanceField, action).map(([i, a]): Fields => [['instance', i], ['action', a]]),
    close: instanceField.map((i): Fields => [['instance', i]]),
    oracle: instanceField.map((i): Fields => [['instance', i]]),
  };
  return byOp;
}

const FIELD_NAMES = ['id', 'op', 'env', 'split', 'instance', 'taskId', 'seed', 'action', 'token', '__proto__', 'constructor', ''];

const idSpec: fc.Arbitrary<IdSpec> = fc.oneof(
  { arbitrary: fc.boolean().map((asString): IdSpec => ({ kind: 'fresh', asString })), weight: 12 },
  // Raw ids the server cannot read (wrong type, negative, fractional, too long): fresh ids stay the only readable ones.
  { arbitrary: anyJsonText.filter((text) => readableId(`{"id":${text}}`) === null).map((text): IdSpec => ({ kind: 'raw', text })), weight: 2 },
  { arbitrary: fc.constant<IdSpec>({ kind: 'missing' }), weight: 1 },
);

const encoding: fc.Arbitrary<OpFrame['encoding']> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'text' as const }), weight: 24 },
  { arbitrary: fc.constant({ kind: 'binary' as const }), weight: 1 },
  { arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((keep) => ({ kind: 'truncated' as const, keep })), weight: 2 },
);

/** Frames of every op of the protocol, with `tasks`/`actions` of the served env so that many are valid. */
export function wsFuzzFrame(tasks: readonly string[], actions: readonly string[]): fc.Arbitrary<WsFuzzFrame> {
  const byOp = opFields(tasks, actions);
  const known = fc.constantFrom(...Object.keys(byOp)).chain((op) =>
    fc.tuple(idSpec, byOp[op] as fc.Arbitrary<readonly Field<InstanceRef>[]>, mutation(FIELD_NAMES), encoding).map(
      ([id, fields, m, enc]): WsFuzzFrame => ({ kind: 'op', id, op: JSON.stringify(op), fields: mutate(fields, m), clean: m === undefined, encoding: enc }),
    ),
  );
  const unknownOp = fc.tuple(idSpec, fc.oneof(nastyString.map((s) => JSON.stringify(s)), anyJsonText, fc.constantFrom('"Spec"', '"step "', '"result"', '"error"', '"subscribe"')), instanceField).map(
    ([id, op, instance]): WsFuzzFrame => ({ kind: 'op', id, op, fields: [['instance', instance]], clean: false, encoding: { kind: 'text' } }),
  );
  return fc.oneof(
    { arbitrary: known, weight: 400 },
    { arbitrary: unknownOp, weight: 40 },
    { arbitrary: garbageText.map((text): WsFuzzFrame => ({ kind: 'garbage', text })), weight: 40 },
    { arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): WsFuzzFrame => ({ kind: 'bytes', bytes })), weight: 10 },
    { arbitrary: fc.uint8Array({ maxLength: 125 }).map((bytes): WsFuzzFrame => ({ kind: 'ping', bytes })), weight: 10 },
    { arbitrary: fc.constantFrom(Uint8Array.of(0xff), Uint8Array.of(0xc3, 0x28), Uint8Array.of(0xed, 0xa0, 0x80)).map((bytes): WsFuzzFrame => ({ kind: 'bad-utf8', bytes })), weight: 3 },
    { arbitrary: fc.constant<WsFuzzFrame>({ kind: 'oversize' }), weight: 2 },
  );
}

/** The JSON text of an op frame once its instance refs and fresh id are resolved. */
export function opFrameText(frame: OpFrame, id: string | undefined, instance: (ref: InstanceRef) => string): string {
  const head: Field<InstanceRef>[] = id === undefined ? [] : [['id', json(id)]];
  const text = fieldsText([...head, ['op', json(frame.op)], ...frame.fields], (r) => JSON.stringify(instance(r)));
  return frame.encoding.kind === 'truncated' ? truncate(text, frame.encoding.keep) : text;
}

/** The id a server can read from a frame's text, as docs/protocol.md defines it (keyed by type), else null. */
export function readableId(text: string | undefined): string | null {
  if (text === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return `n:${id}`;
  if (typeof id === 'string' && id.length >= 1 && id.length <= 64) return `s:${id}`;
  return null;
}
