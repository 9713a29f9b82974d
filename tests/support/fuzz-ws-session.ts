/**
 * Plays one generated fuzz session against a WS env server (issue 24) and judges every reply
 * against what docs/protocol.md promises:
 *
 * - every frame but a ping is answered exactly once, with its id when the frame had a readable
 *   one (else `null`), by a reply that matches the protocol's schemas; frames that must close the
 *   connection (non-UTF-8 text, oversize) close it with a documented close code;
 * - nothing is ever executed on an instance this connection does not hold (another connection's,
 *   one it closed, one never made): the reply is an error that does not reveal the instance;
 * - `step`/`oracle` never succeed on an instance never reset; no reply is `ENV_INTERNAL`.
 *
 * Frames are sent in pipelined batches over one connection; a batch is judged once all its
 * replies are in, walking its frames in send order, as the server receives them.
 */
import fc from 'fast-check';
import { ENV_OPS, ENV_RESPONSE_SCHEMAS, ErrorFrameSchema, type EnvOp } from '../../transport/wire/env-schemas.ts';
import { nastyString } from './fuzz-junk.ts';
import { opFrameText, readableId, wsFuzzFrame, type InstanceRef, type WsFuzzFrame } from './fuzz-ws-frames.ts';
import { FuzzWsPeer, handshakeStatus } from './fuzz-ws-peer.ts';

/** A server that has not answered a batch within this long is hung: the test fails. */
const BATCH_DEADLINE_MS = 20_000;

/** Error codes that would tell a peer an instance it does not hold exists, or act on it. */
const REVEALING = new Set(['INSTANCE_BUSY', 'ENV_NOT_RESET', 'ENV_CLOSED', 'ENV_TIMEOUT', 'ENV_INTERNAL', 'TASK_UNKNOWN', 'NO_ORACLE']);
const ON_INSTANCE = new Set(['reset', 'step', 'oracle', 'close']);

export interface WsSession {
  /** A wrong credential to try an upgrade with before the session: it must be refused. */
  readonly intruder: Record<string, string> | undefined;
  /** Batches of frames; each batch is pipelined, and judged once answered. */
  readonly batches: readonly (readonly WsFuzzFrame[])[];
}

export function wsSession(tasks: readonly string[], actions: readonly string[]): fc.Arbitrary<WsSession> {
  const intruder = fc.oneof(
    fc.constant({}),
    nastyString.filter((s) => /^[\x21-\x7e]*$/.test(s)).map((token) => ({ authorization: `Bearer ${token}` })),
    fc.constantFrom({ authorization: 'Basic Zm9vOmJhcg==' }, { authorization: 'Bearer' }, { authorization: 'bearer wrong' }),
  );
  return fc.record({
    // One session in ten first tries an upgrade without the right token.
    intruder: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: intruder, weight: 1 }),
    batches: fc.array(fc.array(wsFuzzFrame(tasks, actions), { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }),
  });
}

export interface WsTarget {
  readonly url: string;
  readonly token: string;
  /** The server's `maxPayload`: an oversize frame is two bytes more (a JSON string of that many characters). */
  readonly maxPayload: number;
  /** Close codes docs/protocol.md lists. */
  readonly closeCodes: ReadonlySet<number>;
}

/** What a fuzz run sent and got, summed over sessions. */
export interface WsTally {
  frames: number;
  replies: number;
  results: number;
  errors: Record<string, number>;
  closes: Record<string, number>;
  refusedHandshakes: number;
  /** The highest instance number any session saw created: `recent` refs count down from it. */
  newestInstance: number;
}

export const emptyWsTally = (): WsTally => ({ frames: 0, replies: 0, results: 0, errors: {}, closes: {}, refusedHandshakes: 0, newestInstance: 0 });

function requestOf(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface Sent {
  readonly key: string | null;
  readonly request: Record<string, unknown> | undefined;
  reply?: Record<string, unknown>;
}

class Connection {
  readonly open = new Set<string>();
  readonly closed = new Set<string>();
  readonly everReset = new Set<string>();
  private constructor(
    readonly peer: FuzzWsPeer,
    private readonly tally: WsTally,
  ) {}
  static async start(target: WsTarget, tally: WsTally): Promise<Connection> {
    return new Connection(await FuzzWsPeer.open(target.url, { authorization: `Bearer ${target.token}` }, BATCH_DEADLINE_MS), tally);
  }
  created(instance: string): void {
    this.open.add(instance);
    this.tally.newestInstance = Math.max(this.tally.newestInstance, Number(instance.slice(1)) || 0);
  }
  resolve(ref: InstanceRef): string {
    const pick = (set: Set<string>, n: number) => [...set][n % Math.max(1, set.size)] ?? 'i0';
    if (ref.kind === 'own') return pick(this.open, ref.pick);
    if (ref.kind === 'closed') return pick(this.closed, ref.pick);
    if (ref.kind === 'recent') return `i${Math.max(1, this.tally.newestInstance - ref.back)}`;
    return `i${ref.n}`;
  }
}

function fail(message: string, context: unknown): never {
  throw new Error(`${message}: ${JSON.stringify(context, (_k, v: unknown) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…` : v))}`);
}

export async function runWsSession(target: WsTarget, session: WsSession, tally: WsTally): Promise<void> {
  if (session.intruder !== undefined) {
    const status = await handshakeStatus(target.url, session.intruder, BATCH_DEADLINE_MS);
    if (status < 400 || status > 499) fail('an upgrade without the right token was not refused with a 4xx', { status, headers: session.intruder });
    tally.refusedHandshakes++;
  }
  let connection = await Connection.start(target, tally);
  let seq = 0;
  try {
    for (const frames of session.batches) {
      let batch: Sent[] = [];
      for (const frame of frames) {
        if (!connection.peer.isOpen) {
          // Closed by the server: judge what was sent on it, then go on over a new connection.
          await settle(target, connection, batch, tally);
          batch = [];
          connection = await Connection.start(target, tally);
        }
        tally.frames++;
        if (frame.kind === 'ping') {
          connection.peer.ping(frame.bytes);
          continue;
        }
        if (frame.kind === 'bad-utf8' || frame.kind === 'oversize') {
          await settle(target, connection, batch, tally);
          batch = [];
          if (frame.kind === 'bad-utf8') connection.peer.send(frame.bytes, false);
          else connection.peer.send(`"${'x'.repeat(target.maxPayload)}"`, false);
          const code = await connection.peer.waitClosed(BATCH_DEADLINE_MS);
          if (!target.closeCodes.has(code)) fail(`a ${frame.kind} frame closed the connection with an undocumented code`, { code });
          tally.closes[code] = (tally.closes[code] ?? 0) + 1;
          continue;
        }
        batch.push(send(connection, frame, () => ++seq));
      }
      await settle(target, connection, batch, tally);
    }
  } finally {
    await connection.peer.close();
  }
}

function send(connection: Connection, frame: Exclude<WsFuzzFrame, { kind: 'ping' | 'bad-utf8' | 'oversize' }>, nextSeq: () => number): Sent {
  const { peer } = connection;
  if (frame.kind === 'bytes') {
    peer.send(frame.bytes, true);
    return { key: null, request: undefined };
  }
  if (frame.kind === 'garbage') {
    peer.send(frame.text, false);
    return { key: readableId(frame.text), request: requestOf(frame.text) };
  }
  const n = frame.id.kind === 'fresh' ? nextSeq() : 0;
  const id = frame.id.kind === 'fresh' ? (frame.id.asString ? `"f${n}"` : String(10_000_000 + n)) : frame.id.kind === 'raw' ? frame.id.text : undefined;
  const text = opFrameText(frame, id, (ref) => connection.resolve(ref));
  const binary = frame.encoding.kind === 'binary';
  peer.send(binary ? Buffer.from(text) : text, binary);
  return binary ? { key: null, request: undefined } : { key: readableId(text), request: requestOf(text) };
}

/** Waits for the batch's replies, matches them to frames, and judges them in send order. */
async function settle(target: WsTarget, connection: Connection, batch: Sent[], tally: WsTally): Promise<void> {
  if (batch.length === 0) return;
  const { peer } = connection;
  await peer.waitReplies(batch.length, BATCH_DEADLINE_MS);
  const replies = peer.take();
  if (peer.binaryCount > 0) fail('the server sent a binary frame', {});
  if (replies.length < batch.length) {
    // waitReplies returned early: the server closed the connection, which it may do only with a documented code.
    const code = peer.closeCode ?? 0;
    if (!target.closeCodes.has(code)) fail('the server closed the connection with an undocumented code', { code });
    tally.closes[code] = (tally.closes[code] ?? 0) + 1;
  }
  const pending = new Map<string | null, Sent[]>();
  for (const sent of batch) pending.set(sent.key, [...(pending.get(sent.key) ?? []), sent]);
  for (const text of replies) {
    tally.replies++;
    const reply = parseReply(text);
    const key = reply['id'] === null ? null : typeof reply['id'] === 'number' ? `n:${reply['id']}` : `s:${String(reply['id'])}`;
    const candidates = pending.get(key) ?? [];
    if (candidates.length === 0) fail('a reply to no frame in flight (a second reply, or an invented id)', { reply, key });
    if (reply['op'] === 'result') {
      tally.results++;
      // The result belongs to a request with that id whose op's result schema it matches.
      const index = candidates.findIndex((c) => isRequest(c.request) && ENV_RESPONSE_SCHEMAS[c.request?.['op'] as EnvOp].safeParse(reply).success);
      if (index < 0) fail('a result that matches no request in flight with its id (wrong shape?)', { reply, requests: candidates.map((c) => c.request) });
      const [sent] = candidates.splice(index, 1);
      if (sent) sent.reply = reply;
    } else {
      const code = (reply['error'] as { code: string }).code;
      tally.errors[code] = (tally.errors[code] ?? 0) + 1;
      // With one candidate the error is its; errors of ids sent twice stay unattributed.
      const [sent] = candidates.splice(0, 1);
      if (sent && candidates.length === 0) sent.reply = reply;
      if (code === 'ENV_INTERNAL') fail('the server answered ENV_INTERNAL', { reply, request: sent?.request });
    }
  }
  judge(connection, batch);
}

function parseReply(text: string): Record<string, unknown> {
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    fail('a reply that is not JSON', { text });
  }
  if (typeof reply !== 'object' || reply === null) fail('a reply that is not an object', { text });
  const frame = reply as Record<string, unknown>;
  if (frame['op'] === 'error') {
    const checked = ErrorFrameSchema.safeParse(frame);
    if (!checked.success) fail('an error reply that does not match the protocol (undocumented code?)', { frame, issue: checked.error.issues[0] });
  } else if (frame['op'] !== 'result') fail('a frame that is neither result nor error', { frame });
  return frame;
}

function isRequest(request: Record<string, unknown> | undefined): boolean {
  return typeof request?.['op'] === 'string' && ENV_OPS.has(request['op']);
}

/** The lifecycle rules, in send order, against what this connection holds. */
function judge(connection: Connection, batch: readonly Sent[]): void {
  for (const { request, reply } of batch) {
    if (request === undefined || reply === undefined) continue;
    const op = request['op'];
    const instance = request['instance'];
    const ok = reply['op'] === 'result';
    if (typeof op === 'string' && ON_INSTANCE.has(op) && typeof instance === 'string') {
      const code = ok ? 'result' : (reply['error'] as { code: string }).code;
      if (!connection.open.has(instance) && (ok || REVEALING.has(code))) {
        fail(`${op} on an instance this connection does not hold was answered ${code}`, { request, reply, open: [...connection.open] });
      }
      if (ok && (op === 'step' || op === 'oracle') && !connection.everReset.has(instance)) fail(`${op} before any reset succeeded`, { request, reply });
    }
    if (!ok) continue;
    const result = reply['result'] as Record<string, unknown>;
    if (op === 'create') connection.created(result['instance'] as string);
    if (op === 'reset' && typeof instance === 'string') connection.everReset.add(instance);
    if (op === 'close' && typeof instance === 'string') {
      connection.open.delete(instance);
      connection.closed.add(instance);
    }
  }
}
