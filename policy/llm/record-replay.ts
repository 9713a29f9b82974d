/**
 * Record and replay of chat calls. A recording is JSON lines, one per call that ended (with its
 * reply or its final error), keyed by (episodeId, turn) and carrying the hash of the request:
 *
 *   {"episodeId":"s0-a0","turn":3,"hash":"9f…","request":{…},"reply":{"content":"…",…}}
 *   {"episodeId":"s1-a0","turn":0,"hash":"c2…","request":{…},"error":{"code":"LLM_TIMEOUT","detail":"…"}}
 *
 * The recorder appends each line with one synchronous append as the call ends, so a crash loses
 * no finished call; at most a half line is left at the end, which the replayer skips with a
 * warning. Later lines for the same key replace earlier ones (a resumed run re-records the
 * episodes it re-runs). Requests never hold an API key: `ChatRequest` has no field for one.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { CallKey, ChatMessage, ChatReply, ChatRequest } from './chat-types.ts';
import { LLM_ERROR_CODES, LlmError, type LlmErrorCode } from './llm-error.ts';

/** One line of a recording. */
export interface RecordEntry {
  readonly episodeId: string;
  readonly turn: number;
  /** The turn's retry after a context-length rejection (CallKey.trimmed). */
  readonly trimmed?: true;
  readonly hash: string;
  readonly request: ChatRequest;
  readonly reply?: ChatReply;
  readonly error?: { readonly code: LlmErrorCode; readonly detail: string; readonly retries: number };
}

/** sha256 (hex) of a canonical JSON of model, messages, temperature, maxTokens and seed. */
export function requestHash(request: ChatRequest): string {
  // Fixed key order and explicit nulls: the same request hashes the same however it was built.
  const canonical = JSON.stringify({
    model: request.model,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    temperature: request.temperature ?? null,
    maxTokens: request.maxTokens ?? null,
    seed: request.seed ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * The line for one ended call. The request is copied field by field, so that nothing a caller
 * attached to it beyond `ChatRequest` (a key, a header) reaches the file.
 */
export function recordEntry(
  key: CallKey,
  request: ChatRequest,
  result: { readonly reply: ChatReply } | { readonly error: NonNullable<RecordEntry['error']> },
): RecordEntry {
  const clean: ChatRequest = {
    model: request.model,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
  };
  const base = { episodeId: key.episodeId, turn: key.turn, ...(key.trimmed === true ? { trimmed: true as const } : {}), hash: requestHash(clean), request: clean };
  if ('reply' in result) {
    const { content, promptTokens, completionTokens, latencyMs, retries } = result.reply;
    return { ...base, reply: { content, promptTokens, completionTokens, latencyMs, retries } };
  }
  const { code, detail, retries } = result.error;
  return { ...base, error: { code, detail, retries } };
}

/** The first part of `incoming` that differs from `recorded`, in words. */
export function describeDifference(recorded: ChatRequest, incoming: ChatRequest): string {
  if (recorded.model !== incoming.model) return `model "${incoming.model}" where the recording has "${recorded.model}"`;
  const count = Math.max(recorded.messages.length, incoming.messages.length);
  for (let i = 0; i < count; i++) {
    const was = recorded.messages[i];
    const now = incoming.messages[i];
    if (was === undefined || now === undefined) return `${incoming.messages.length} messages where the recording has ${recorded.messages.length}`;
    if (was.role !== now.role) return `message ${i} has role ${now.role} where the recording has ${was.role}`;
    if (was.content !== now.content) return `message ${i} (${now.role}) differs from the recording at character ${firstDifference(was.content, now.content)}`;
  }
  for (const field of ['temperature', 'maxTokens', 'seed'] as const) {
    if (recorded[field] !== incoming[field]) return `${field} ${String(incoming[field])} where the recording has ${String(recorded[field])}`;
  }
  return 'the request hash differs from the recorded hash';
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Appends entries to a recording, one line per call, as they end. */
export class Recorder {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    // A killed run may have left a half line: start ours on a fresh line so both stay readable.
    if (existsSync(path) && !endsWithNewline(path)) appendFileSync(path, '\n');
  }

  write(entry: RecordEntry): void {
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`);
  }
}

function endsWithNewline(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return true;
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

const messageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
const entrySchema = z.object({
  episodeId: z.string(),
  turn: z.number().int().nonnegative(),
  trimmed: z.literal(true).optional(),
  hash: z.string(),
  request: z.object({
    model: z.string(),
    messages: z.array(messageSchema),
    temperature: z.number().optional(),
    maxTokens: z.number().optional(),
    seed: z.number().optional(),
  }),
  reply: z
    .object({
      content: z.string(),
      promptTokens: z.number(),
      completionTokens: z.number(),
      latencyMs: z.number(),
      retries: z.number(),
    })
    .optional(),
  error: z.object({ code: z.enum(LLM_ERROR_CODES as [LlmErrorCode, ...LlmErrorCode[]]), detail: z.string(), retries: z.number().int().nonnegative().default(0) }).optional(),
});

type ParsedEntry = z.infer<typeof entrySchema>;

function toEntry(parsed: ParsedEntry): RecordEntry | undefined {
  const { request } = parsed;
  const messages: ChatMessage[] = request.messages.map((m) => ({ role: m.role, content: m.content }));
  const base = {
    episodeId: parsed.episodeId,
    turn: parsed.turn,
    ...(parsed.trimmed === true ? { trimmed: true as const } : {}),
    hash: parsed.hash,
    request: {
      model: request.model,
      messages,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
    },
  };
  if (parsed.reply !== undefined) return { ...base, reply: parsed.reply };
  if (parsed.error !== undefined) return { ...base, error: parsed.error };
  return undefined;
}

/** What a recording answers for one call. */
export type ReplayAnswer = { readonly ok: true; readonly reply: ChatReply } | { readonly ok: false; readonly error: LlmError };

/** Answers calls from a recording; never contacts an endpoint. */
export class Replayer {
  readonly #entries = new Map<string, RecordEntry>();

  /**
   * Reads the whole recording. Lines that are not entries (the half line a killed run leaves at
   * the end) are skipped with one warning naming them. Throws when the file cannot be read.
   */
  constructor(
    readonly path: string,
    warn: (message: string) => void = (message) => console.warn(message),
  ) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (cause) {
      throw new Error(`cannot read the LLM recording ${path}: ${(cause as Error).message}`);
    }
    const skipped: number[] = [];
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      const entry = parseLine(line);
      if (entry === undefined) skipped.push(index + 1);
      else this.#entries.set(keyOf(entry), entry);
    });
    if (skipped.length > 0) warn(`LLM recording ${path}: skipped ${skipped.length} unreadable line(s) (${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''}), as a run killed mid-write leaves`);
  }

  get size(): number {
    return this.#entries.size;
  }

  answer(request: ChatRequest, key: CallKey): ReplayAnswer {
    const entry = this.#entries.get(keyOf(key));
    if (entry === undefined) return { ok: false, error: new LlmError('LLM_REPLAY_MISSING', `the recording ${this.path} has no call for this episode and turn`, key) };
    if (requestHash(request) !== entry.hash) {
      return { ok: false, error: new LlmError('LLM_REPLAY_MISMATCH', `the request differs from the recorded one: ${describeDifference(entry.request, request)}`, key) };
    }
    if (entry.reply !== undefined) return { ok: true, reply: entry.reply };
    const error = entry.error ?? { code: 'LLM_BAD_RESPONSE' as const, detail: 'the recorded entry has neither reply nor error', retries: 0 };
    return { ok: false, error: new LlmError(error.code, error.detail, key, error.retries) };
  }
}

function parseLine(line: string): RecordEntry | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = entrySchema.safeParse(json);
  return parsed.success ? toEntry(parsed.data) : undefined;
}

function keyOf(key: Pick<CallKey, 'episodeId' | 'turn' | 'trimmed'>): string {
  return `${key.turn}\u0000${key.episodeId}${key.trimmed === true ? '\u0000trimmed' : ''}`;
}
