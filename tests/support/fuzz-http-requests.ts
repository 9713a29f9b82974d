/**
 * fast-check arbitraries of requests to the AgentGym HTTP endpoint (docs/agentgym-http.md) for
 * the HTTP fuzz test (issue 24): every route with each env flavor's field names (`id`/`env_idx`,
 * `data_idx`/`id`, TextCraft's `commands`/`goal`), then made wrong the ways clients get it wrong:
 * the wrong method or a near-miss path, a wrong content type, a body mutated, truncated, not
 * JSON, nested 20,000 deep or over the size limit, ids never made, closed or another client's;
 * and bytes that are not HTTP at all, over a raw socket.
 */
import fc from 'fast-check';
import { fieldsText, json, mutate, mutation, ref, str, type Field } from './fuzz-json-fields.ts';
import { anyJsonText, garbageText, nastyString, truncate } from './fuzz-junk.ts';

/** The field names of one AgentGym env flavor (servers/agentgym-http/adapters.ts). */
export interface HttpFlavor {
  readonly adapter: 'generic' | 'babyai' | 'textcraft' | 'sciworld' | 'search';
  readonly idField: string;
  readonly indexField: string;
  /** /create also resets (TextCraft, SearchQA): a created instance can step at once. */
  readonly resetOnCreate: boolean;
}

export const HTTP_FLAVORS: readonly HttpFlavor[] = [
  { adapter: 'babyai', idField: 'id', indexField: 'data_idx', resetOnCreate: false },
  { adapter: 'generic', idField: 'id', indexField: 'data_idx', resetOnCreate: false },
  { adapter: 'textcraft', idField: 'id', indexField: 'data_idx', resetOnCreate: true },
  { adapter: 'sciworld', idField: 'id', indexField: 'data_idx', resetOnCreate: false },
  { adapter: 'search', idField: 'env_idx', indexField: 'id', resetOnCreate: true },
];

/** An instance id, resolved by the session when it sends the request. */
export type HttpRef =
  | { readonly kind: 'own'; readonly pick: number; readonly asString: boolean }
  | { readonly kind: 'closed'; readonly pick: number }
  /** `back` below the newest id the fuzzer saw: most likely another client's live instance. */
  | { readonly kind: 'recent'; readonly back: number }
  /** Far above any id made so far: never existed. */
  | { readonly kind: 'absent'; readonly n: number };

export type HttpBody =
  | { readonly kind: 'none' }
  | { readonly kind: 'fields'; readonly fields: readonly Field<HttpRef>[]; readonly keep: number | undefined }
  | { readonly kind: 'text'; readonly text: string }
  /** `bytes` of JSON-ish text; over the server's body limit when large. */
  | { readonly kind: 'huge'; readonly bytes: number };

export interface HttpFuzzRequest {
  readonly kind: 'http';
  readonly route: string;
  readonly method: string;
  /** The path sent, with the query (`/observation?id=…` holds a reference in `queryRef`). */
  readonly path: string;
  readonly queryRef: HttpRef | undefined;
  readonly contentType: string | undefined;
  readonly body: HttpBody;
  /** Sent exactly as a client of the protocol would (right method, path, JSON body, fields unmutated). */
  readonly clean: boolean;
}

/** Bytes written to a raw TCP socket: malformed HTTP the server's parser must refuse. */
export interface RawHttpRequest {
  readonly kind: 'raw';
  readonly bytes: string | Uint8Array;
}

export type HttpFuzzInput = HttpFuzzRequest | RawHttpRequest;

const httpRef: fc.Arbitrary<HttpRef> = fc.oneof(
  { arbitrary: fc.tuple(fc.nat(15), fc.boolean()).map(([pick, asString]) => ({ kind: 'own' as const, pick, asString: asString && pick % 3 === 0 })), weight: 6 },
  { arbitrary: fc.nat(15).map((pick) => ({ kind: 'closed' as const, pick })), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 40 }).map((back) => ({ kind: 'recent' as const, back })), weight: 2 },
  { arbitrary: fc.nat(1_000).map((n) => ({ kind: 'absent' as const, n })), weight: 1 },
);

const FIELD_NAMES = ['id', 'env_idx', 'data_idx', 'action', 'seed', 'commands', 'goal', '__proto__', 'constructor', ''];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
const JSON_TYPE = 'application/json';

/** The request a correct client sends for `route`, before anything is made wrong. */
function template(flavor: HttpFlavor, taskCount: number, actions: readonly string[]) {
  const index = fc.oneof({ arbitrary: fc.nat(taskCount - 1).map((n) => json(String(n))), weight: 8 }, { arbitrary: anyJsonText.map(json), weight: 1 });
  const action = fc.oneof({ arbitrary: fc.constantFrom(...actions).map(str), weight: 4 }, { arbitrary: nastyString.map(str), weight: 1 });
  const id = httpRef.map((r) => ref(r));
  type T = { route: string; method: string; queryRef?: HttpRef; fields?: readonly Field<HttpRef>[] };
  const createFields: fc.Arbitrary<readonly Field<HttpRef>[]> =
    flavor.adapter === 'search' ? index.map((i) => [[flavor.indexField, i]]) : flavor.adapter === 'textcraft' ? fc.constantFrom([], [['commands', json('null')]]) : fc.constant([]);
  return fc.oneof(
    { arbitrary: createFields.map((fields): T => ({ route: '/create', method: 'POST', fields })), weight: 4 },
    {
      arbitrary: fc.tuple(id, index, fc.option(fc.integer(), { nil: undefined })).map(([i, x, seed]): T => ({
        route: '/reset',
        method: 'POST',
        fields: seed === undefined ? [[flavor.idField, i], [flavor.indexField, x]] : [[flavor.idField, i], [flavor.indexField, x], ['seed', json(String(seed))]],
      })),
      weight: 4,
    },
    { arbitrary: fc.tuple(id, action).map(([i, a]): T => ({ route: '/step', method: 'POST', fields: [[flavor.idField, i], ['action', a]] })), weight: 8 },
    { arbitrary: id.map((i): T => ({ route: '/close', method: 'POST', fields: [[flavor.idField, i]] })), weight: 2 },
    { arbitrary: httpRef.map((r): T => ({ route: '/observation', method: 'GET', queryRef: r })), weight: 2 },
    { arbitrary: fc.constantFrom<T>({ route: '/', method: 'GET' }, { route: '/healthz', method: 'GET' }, { route: '/readyz', method: 'GET' }), weight: 1 },
  );
}

/** A path near a real one, or not near any. Only characters Node's client accepts in a path. */
const wrongPath: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('/step/', '//step', '/STEP', '/create.json', '/%2e%2e/create', '/reset%00', '/close?id=0', '/observation?', '/observation?id=', '/observation?id=-1', '/observation?id=1e3', `/${'a'.repeat(2_000)}`, '/*', '/?'),
  // Percent-encoded bytes: `encodeURIComponent` throws on lone surrogates, and a client sends bytes anyway.
  nastyString.map((s) => `/${[...Buffer.from(s.slice(0, 1_000))].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`),
);

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant(JSON_TYPE), weight: 12 },
  { arbitrary: fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/xml', '*/*'), weight: 3 },
);

export function httpRequest(flavor: HttpFlavor, taskCount: number, actions: readonly string[]): fc.Arbitrary<HttpFuzzRequest> {
  const wrongBody: fc.Arbitrary<HttpBody> = fc.oneof(
    { arbitrary: fc.oneof(garbageText, anyJsonText).map((text): HttpBody => ({ kind: 'text', text })), weight: 6 },
    // Just over the 64 KiB limit, or a megabyte: both must be refused with 413 without reading them whole.
    { arbitrary: fc.constantFrom(64 * 1024 + 1, 200 * 1024, 1024 * 1024).map((bytes): HttpBody => ({ kind: 'huge', bytes })), weight: 1 },
  );
  return fc
    .tuple(
      template(flavor, taskCount, actions),
      mutation(FIELD_NAMES),
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: fc.double({ min: 0, max: 1, noNaN: true }), weight: 1 }),
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 14 }, { arbitrary: wrongPath, weight: 1 }),
      contentType,
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: wrongBody, weight: 1 }),
    )
    .map(([t, m, keep, method, path, type, replaced]): HttpFuzzRequest => {
      const body: HttpBody = replaced ?? (t.fields === undefined ? { kind: 'none' } : { kind: 'fields', fields: mutate(t.fields, m), keep });
      const queryPath = t.queryRef === undefined ? t.route : `${t.route}?${flavor.idField}=`;
      const clean = method === undefined && path === undefined && replaced === undefined && m === undefined && keep === undefined && (t.method === 'GET' || type === JSON_TYPE);
      return { kind: 'http', route: t.route, method: method ?? t.method, path: path ?? queryPath, queryRef: path === undefined ? t.queryRef : undefined, contentType: type, body, clean };
    });
}

const RAW = [
  'GARBAGE\r\n\r\n',
  'GET /\r\n\r\n',
  'GET / HTTP/1.0\r\n\r\n',
  'GET / HTTP/2.0\r\nHost: x\r\n\r\n',
  'POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n{"id":0,',
  'POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
  'POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'POST /step HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n',
  'POST /create HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nX-Bad: a\rb\r\n\r\n',
  `GET /observation?id=0 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\nPOST /close HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n{"id":0}',
  'POST /create HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n',
];

export const rawHttp: fc.Arbitrary<RawHttpRequest> = fc.oneof(
  { arbitrary: fc.constantFrom(...RAW).map((bytes): RawHttpRequest => ({ kind: 'raw', bytes })), weight: 3 },
  { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes): RawHttpRequest => ({ kind: 'raw', bytes })), weight: 1 },
);

/** The body text of a request once its references are resolved. */
export function bodyText(body: HttpBody, resolve: (r: HttpRef) => string): string | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'text':
      return body.text;
    case 'huge':
      return `{"action":"${'x'.repeat(body.bytes)}"}`;
    case 'fields': {
      const text = fieldsText(body.fields, resolve);
      return body.keep === undefined ? text : truncate(text, body.keep);
    }
  }
}
